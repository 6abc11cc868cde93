package atomicfile

import "io"

// WriteOrStdout writes data to path as Write does, or to stdout when path
// is "": a command's result, given --out or not.
func WriteOrStdout(path string, data []byte, stdout io.Writer) error {
	if path == "" {
		_, err := stdout.Write(data)
		return err
	}
	return Write(path, data)
}
