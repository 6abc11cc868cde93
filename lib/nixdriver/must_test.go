package nixdriver

import "testing"

// must ends the test at a failed step of its setup.
func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
