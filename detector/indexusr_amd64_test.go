package detector

import "testing"

func init() {
	// The vector path, checked directly (indexUsr takes it only from
	// usrAVX2Window bytes on); without AVX2, indexUsr is the scalar search.
	if useAVX2 {
		indexUsrImpls["indexUsrVector"] = indexUsrVector
	}
}

func TestIndexUsrAVX2Detected(t *testing.T) {
	if !useAVX2 {
		t.Log("no AVX2 (or the OS does not save YMM): only the scalar search is tested")
	}
}
