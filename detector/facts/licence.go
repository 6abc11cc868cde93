package facts

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
)

// MaxLicenceBytes bounds the licence file read: NVIDIA's longest (the
// CUDA Toolkit EULA) is some 100 kB; a larger file is recorded by its
// size alone.
const MaxLicenceBytes = 1 << 20

// maxFirstLine bounds the first line kept.
const maxFirstLine = 200

// licenceNames are the names of a licence file at the top of a tree, in
// the order one is preferred (NVIDIA's archives: LICENSE.txt or LICENSE;
// the wheels: License.txt).
var licenceNames = []string{"license", "license.txt", "license.md", "licence", "licence.txt"}

// ReadLicence reads the licence file at the top of the tree at root: its
// sha256 and first non-empty line. nil when the tree has none. Only a
// regular file is read (a symlink may leave the tree), at most
// MaxLicenceBytes of it.
func ReadLicence(root string) (*features.LicenceText, error) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, fmt.Errorf("licence: %w", err)
	}
	var names []string
	for _, e := range entries {
		if e.Type().IsRegular() && rank(e.Name()) >= 0 {
			names = append(names, e.Name())
		}
	}
	if len(names) == 0 {
		return nil, nil
	}
	sort.Slice(names, func(i, j int) bool {
		if rank(names[i]) != rank(names[j]) {
			return rank(names[i]) < rank(names[j])
		}
		return names[i] < names[j]
	})
	return LicenceOf(filepath.Join(root, names[0]), names[0])
}

func rank(name string) int {
	for i, n := range licenceNames {
		if strings.EqualFold(name, n) {
			return i
		}
	}
	return -1
}

// LicenceOf reads one licence file, named rel in the result.
func LicenceOf(path, rel string) (*features.LicenceText, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("licence: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("licence %s: %w", rel, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("licence %s: not a regular file", rel)
	}
	t := &features.LicenceText{Path: rel, Size: fi.Size()}
	if fi.Size() > MaxLicenceBytes {
		return t, nil
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxLicenceBytes+1))
	if err != nil {
		return nil, fmt.Errorf("licence %s: %w", rel, err)
	}
	if len(data) > MaxLicenceBytes {
		// It grew since the Stat.
		t.Size = int64(len(data))
		return t, nil
	}
	sum := sha256.Sum256(data)
	t.SHA256 = hex.EncodeToString(sum[:])
	t.FirstLine = firstLine(data)
	return t, nil
}

// firstLine is the first line of data with more than white space,
// trimmed, made valid UTF-8 and cut to maxFirstLine bytes.
func firstLine(data []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), MaxLicenceBytes+1)
	for sc.Scan() {
		line := strings.TrimSpace(strings.ToValidUTF8(strings.TrimPrefix(sc.Text(), "\ufeff"), "\ufffd"))
		if line == "" {
			continue
		}
		if len(line) > maxFirstLine {
			line = line[:maxFirstLine]
			for !utf8.ValidString(line) {
				line = line[:len(line)-1]
			}
		}
		return line
	}
	return ""
}
