package facts

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

func init() {
	// The vector path, checked directly (indexUsr takes it only from
	// usrAVX2Window bytes on); without AVX2, indexUsr is the scalar search.
	if useAVX2 {
		indexUsrImpls["indexUsrVector"] = indexUsrVector
	}
}

// TestIndexUsrAVX2Detected: the CPUID/XGETBV check agrees with the
// kernel's view of the CPU (the avx2 flag of /proc/cpuinfo, which Linux
// shows only when it saves the YMM registers), so the vector path is
// tested wherever it can run.
func TestIndexUsrAVX2Detected(t *testing.T) {
	data, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		testenv.Unavailable(t, "no /proc/cpuinfo to compare the AVX2 check with: "+err.Error())
	}
	kernel := false
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "flags") {
			kernel = slices.Contains(strings.Fields(line), "avx2")
			break
		}
	}
	if useAVX2 != kernel {
		t.Errorf("useAVX2 = %v, /proc/cpuinfo avx2 = %v", useAVX2, kernel)
	}
	if !useAVX2 {
		t.Log("no AVX2: only the scalar search is tested")
	}
}
