package atomicfile

import (
	"bytes"
	"fmt"
	"os"
)

// WriteIfChanged is Write, except that a regular file at path that holds
// data already is left alone, modification time included: a run that
// changes nothing changes no file (make, rsync and editors see nothing
// new). It says whether it wrote.
func WriteIfChanged(path string, data []byte) (bool, error) {
	if same, err := holds(path, data); err != nil {
		return false, err
	} else if same {
		return false, nil
	}
	return true, Write(path, data)
}

// holds compares the file with data without reading more of it than
// data's size (a file that is larger differs anyway).
func holds(path string, data []byte) (bool, error) {
	fi, err := os.Stat(path)
	switch {
	case os.IsNotExist(err):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("write %s: %w", path, err)
	case !fi.Mode().IsRegular() || fi.Size() != int64(len(data)):
		return false, nil
	}
	old, err := os.ReadFile(path)
	if err != nil {
		return false, fmt.Errorf("write %s: %w", path, err)
	}
	return bytes.Equal(old, data), nil
}
