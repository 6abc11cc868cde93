package dlopen

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// found is a load as the tests compare it: name, glob, confidence and
// the kinds of its evidence.
type found struct {
	Name, Glob, Confidence string
	Kinds                  string
}

func summarize(r Result) []found {
	out := []found{}
	for _, l := range r.Loads {
		var kinds []string
		for _, e := range l.Evidence {
			kinds = append(kinds, e.Kind)
		}
		out = append(out, found{l.Name, l.Glob, l.Confidence, strings.Join(kinds, ",")})
	}
	return out
}

func scanSection(body, soname string, needed ...string) Result {
	return scanBytes([]byte(body), soname, needed...)
}

func scanBytes(body []byte, soname string, needed ...string) Result {
	c := newCollector(soname, needed)
	c.scanStrings(".rodata", body, 0x1000)
	return c.result()
}

// TestClassify holds each rule of docs/runtime-dependencies.md to a
// string of the shape seen in NVIDIA's libraries.
func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       []found
	}{
		{"exact soname (cuBLASLt 13)", "\x00libnvrtc.so.13\x00", []found{{"libnvrtc.so.13", "", High, KindSoname}}},
		{"unversioned (cuFile)", "\x00liburcu-bp.so\x00", []found{{"liburcu-bp.so", "", High, KindSoname}}},
		{"template %s (cuFile)", "\x00libnuma.so.%s\x00", []found{{"libnuma.so.%s", "libnuma.so.*", High, KindTemplate}}},
		{"template in the stem (NVSHMEM)", "\x00nvshmem_transport_%s.so.%d\x00", []found{{"nvshmem_transport_%s.so.%d", "nvshmem_transport_*.so.*", High, KindTemplate}}},
		{"prefix (cuDNN)", "\x00libnvrtc.so.\x00", []found{{"libnvrtc.so.", "libnvrtc.so.*", High, KindPrefix}}},
		{"absolute path (CUPTI)", "\x00/usr/lib64/libnvidia-ml.so.1\x00", []found{{"libnvidia-ml.so.1", "", Medium, KindPath}}},
		{"after a double constant (cuFFTW 12)", "\x00\x00\xf0?libcuda.so.1\x00cuInit\x00", []found{{"libcuda.so.1", "", Medium, KindNearBinary}}},
		{"right after binary (cuBLAS 12)", "\x9clibcuda.so.1\x00", []found{{"libcuda.so.1", "", Medium, KindNearBinary}}},
		{"error message (NCCL)", "\x00Failed to open libgdrapi.so.2\x00", []found{{"libgdrapi.so.2", "", Low, KindMention}}},
		{"full stop is no prefix", "\x00skipping libgdrapi.so.2.\x00", []found{{"libgdrapi.so.2", "", Low, KindMention}}},
		{"followed by text", "\x00(libcufile_rdma.so)\x00", []found{{"libcufile_rdma.so", "", Low, KindMention}}},
		{"name and message merge", "\x00libnvidia-ml.so.1\x00Failed to open libnvidia-ml.so.1: %s\x00",
			[]found{{"libnvidia-ml.so.1", "", High, KindSoname + "," + KindMention}}},
		{"debuglink-like name", "\x00libcublas.so.13.10.0.8.sym\x00", []found{}},
		{"%% is no conversion", "\x00shl-%%%%%%%.so\x00", []found{}},
		{"a non-lib name in a sentence", "\x00loads nvshmem_x.so now\x00", []found{}},
		{"Lua search path", "\x00/usr/local/lib/lua/5.4/?.so;./?.so\x00", []found{}},
		{"regular expression", "\x00regex:^.*libcuda\\.so\\.(\\d|\\.)*\\d$\x00", []found{}},
		{"bare .so.", "\x00.so.\x00", []found{}},
		{"sentence path keeps mention", "\x00see /opt/lib/libfoo.so for help\x00", []found{{"libfoo.so", "", Low, KindMention}}},
		{"no terminating NUL", "\x00libcuda.so.1", []found{{"libcuda.so.1", "", Low, KindMention}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, summarize(scanSection(tc.body, ""))); diff != "" {
				t.Errorf("%q (-want +got):\n%s", tc.body, diff)
			}
		})
	}
}

// TestOwnNamesLeftOut: the soname and DT_NEEDED names are no runtime
// load, whatever the strings say.
func TestOwnNamesLeftOut(t *testing.T) {
	got := summarize(scanSection("\x00libself.so.1\x00libdep.so.2\x00libother.so.3\x00", "libself.so.1", "libdep.so.2"))
	want := []found{{"libother.so.3", "", High, KindSoname}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Error(diff)
	}
}

// TestEvidenceBounded: at most MaxEvidence places per name, the rest
// counted; a string kept is at most MaxStringLen bytes.
func TestEvidenceBounded(t *testing.T) {
	body := strings.Repeat("\x00libcuda.so.1", 10) + "\x00" + strings.Repeat("x", 1000) + " libz.so.1 \x00"
	r := scanSection(body, "")
	if len(r.Loads) != 2 {
		t.Fatalf("loads %v", summarize(r))
	}
	cuda, z := r.Loads[0], r.Loads[1]
	if len(cuda.Evidence) != MaxEvidence || cuda.EvidenceOmitted != 10-MaxEvidence {
		t.Errorf("libcuda.so.1: %d evidence, %d omitted", len(cuda.Evidence), cuda.EvidenceOmitted)
	}
	if len(z.Evidence[0].String) != MaxStringLen {
		t.Errorf("kept string of %d bytes", len(z.Evidence[0].String))
	}
	if cuda.Evidence[1].Offset != 0x1000+14 {
		t.Errorf("second string at %#x, want %#x", cuda.Evidence[1].Offset, 0x1000+14)
	}
}

// TestStrongEvidenceKept: messages found first never crowd out the
// string itself; the strongest place comes first.
func TestStrongEvidenceKept(t *testing.T) {
	body := strings.Repeat("\x00failed to open libnvrtc.so.13: %s", 6) + "\x00libnvrtc.so.13\x00"
	r := scanSection(body, "")
	if len(r.Loads) != 1 {
		t.Fatalf("loads %v", summarize(r))
	}
	l := r.Loads[0]
	if l.Confidence != High || l.Evidence[0].Kind != KindSoname || len(l.Evidence) != MaxEvidence || l.EvidenceOmitted != 3 {
		t.Errorf("%+v", l)
	}
	for i := 2; i < len(l.Evidence); i++ {
		if l.Evidence[i].Offset < l.Evidence[i-1].Offset {
			t.Errorf("mentions out of file order: %+v", l.Evidence)
		}
	}
}

func ExampleIsLoad() {
	for _, c := range []string{Declared, High, Medium, Low} {
		fmt.Println(c, IsLoad(c))
	}
	// Output:
	// declared true
	// high true
	// medium true
	// low false
}
