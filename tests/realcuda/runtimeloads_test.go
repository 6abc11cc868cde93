package realcuda

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/detector/dlopen"
	"github.com/nix-cuda/cuda-redist-find-features/detector/elfinfo"
	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
	"github.com/nix-cuda/cuda-redist-find-features/tests/fixtures/testenv"
)

// handEntry is one line of a hand list: a name a library's data holds
// and the verdict read from the binary.
type handEntry struct{ verdict, name, why string }

// handLibrary is one "== PATH" block of a hand list.
type handLibrary struct {
	path    string
	entries []handEntry
}

// readHandList reads testdata/runtime-loads/SET.txt (its header says the
// format).
func readHandList(t *testing.T, set string) []handLibrary {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "runtime-loads", set+".txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var libs []handLibrary
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "== "):
			libs = append(libs, handLibrary{path: strings.TrimPrefix(line, "== ")})
		default:
			fields := strings.Fields(line)
			_, why, _ := strings.Cut(line, "# ")
			if len(libs) == 0 || len(fields) < 3 || !slices.Contains([]string{"load", "not", "uncertain"}, fields[0]) {
				t.Fatalf("%s.txt:%d: want VERDICT NAME WHERE # WHY under a == PATH line: %q", set, n, line)
			}
			l := &libs[len(libs)-1]
			l.entries = append(l.entries, handEntry{verdict: fields[0], name: fields[1], why: why})
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return libs
}

// explainedFalsePositives are the names the hand lists call no load that
// the detector reports as one (confidence medium or more), each with why
// the rules cannot tell it apart. Any other false positive fails the test.
var explainedFalsePositives = map[string]string{
	"libcupti.so": "CUPTI's own name without its version, an exact string beside libcuda.so and libcudart.so in " +
		"a list of module names: exactly the shape of a load, and a library does not load itself; resolution " +
		"finds it in the same package, so it costs no wrong dependency",
}

// measure counts one library's (or a sum's) verdicts against the detector.
type measure struct {
	hand, found, truePos, falsePos, uncertain, mentions int
}

func (m *measure) add(o measure) {
	m.hand += o.hand
	m.found += o.found
	m.truePos += o.truePos
	m.falsePos += o.falsePos
	m.uncertain += o.uncertain
	m.mentions += o.mentions
}

func pct(a, b int) string {
	if b == 0 {
		return "–"
	}
	return fmt.Sprintf("%d/%d", a, b)
}

// TestRuntimeLoadsAgainstHandLists measures detector/dlopen against the
// hand lists of testdata/runtime-loads: recall must be 100% (every load
// reported with confidence medium or more), every false positive must be
// one of explainedFalsePositives, and every name the detector reports, a
// mention included, must have a verdict (the hand lists are complete).
// It logs the per-library table of docs/runtime-dependencies.md.
func TestRuntimeLoadsAgainstHandLists(t *testing.T) {
	dir := testenv.RealCUDA(t)
	for _, sub := range []string{"dlopen/cu12", "dlopen/cu13", "dlopen/cuda-11.8"} {
		if _, err := os.Stat(filepath.Join(dir, sub, ".complete")); err != nil {
			t.Fatalf("no %s in %s (run scripts/fetch-real-cuda.sh %s)", sub, dir, dir)
		}
	}
	var table strings.Builder
	table.WriteString("| set | library | loads (hand) | reported | true | false | uncertain | mentions | recall | precision |\n|---|---|---|---|---|---|---|---|---|---|\n")
	var total measure
	for _, set := range []string{"cuda-11.8", "cuda-12", "cuda-13"} {
		libs := readHandList(t, set)
		if len(libs) < 10 {
			t.Fatalf("%s: only %d libraries on the hand list", set, len(libs))
		}
		var sum measure
		for _, hl := range libs {
			m := checkLibrary(t, set, dir, hl)
			sum.add(m)
			if m.hand+m.found+m.uncertain == 0 {
				continue
			}
			fmt.Fprintf(&table, "| %s | %s | %d | %d | %d | %d | %d | %d | %s | %s |\n", set, filepath.Base(hl.path),
				m.hand, m.found, m.truePos, m.falsePos, m.uncertain, m.mentions, pct(m.truePos, m.hand), pct(m.truePos, m.truePos+m.falsePos))
		}
		fmt.Fprintf(&table, "| %s | **all %d libraries** | %d | %d | %d | %d | %d | %d | %s | %s |\n", set, len(libs),
			sum.hand, sum.found, sum.truePos, sum.falsePos, sum.uncertain, sum.mentions, pct(sum.truePos, sum.hand), pct(sum.truePos, sum.truePos+sum.falsePos))
		total.add(sum)
	}
	t.Logf("recall %s, precision %s (uncertain %d, mentions %d)\n%s", pct(total.truePos, total.hand),
		pct(total.truePos, total.truePos+total.falsePos), total.uncertain, total.mentions, table.String())
	if total.hand < 100 {
		t.Errorf("only %d loads on the hand lists", total.hand)
	}
}

// checkLibrary compares one library's hand list with what the detector
// reports. "reported" counts the names the detector calls loads, without
// those the hand list calls uncertain.
func checkLibrary(t *testing.T, set, dir string, hl handLibrary) measure {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, hl.path))
	if err != nil {
		t.Fatalf("%s: %v", set, err)
	}
	info, err := elfinfo.Read(data)
	if err != nil {
		t.Errorf("%s: %s: %v", set, hl.path, err)
		return measure{}
	}
	reported := map[string]string{}
	for _, l := range info.RuntimeLoads {
		reported[l.Name] = l.Confidence
	}
	var m measure
	seen := map[string]bool{}
	for _, e := range hl.entries {
		seen[e.name] = true
		conf, ok := reported[e.name]
		isLoad := ok && dlopen.IsLoad(conf)
		switch e.verdict {
		case "load":
			m.hand++
			if isLoad {
				m.truePos++
				m.found++
			} else {
				t.Errorf("%s: %s: missed load %s (%s): reported %q", set, hl.path, e.name, e.why, conf)
			}
		case "not":
			if isLoad {
				m.falsePos++
				m.found++
				if explainedFalsePositives[e.name] == "" {
					t.Errorf("%s: %s: false positive %s (%s): the hand list says %q", set, hl.path, e.name, conf, e.why)
				}
			} else if ok {
				m.mentions++
			}
		case "uncertain":
			m.uncertain++
		}
	}
	for _, l := range info.RuntimeLoads {
		if !seen[l.Name] {
			t.Errorf("%s: %s: the detector reports %s (%s, %v) and the hand list has no verdict on it", set, hl.path, l.Name, l.Confidence, l.Evidence)
		}
	}
	return m
}

// TestRuntimeLoadsTheIssueNames checks the loads issue 39 names, each
// read from the real library and absent from its DT_NEEDED: cuBLASLt 13
// loads NVRTC 13, cuDNN loads cuBLASLt and NVRTC, NCCL loads NVML and
// the verbs library, cuFile loads libnuma and liburcu.
func TestRuntimeLoadsTheIssueNames(t *testing.T) {
	dir := testenv.RealCUDA(t)
	for _, tc := range []struct{ path, name string }{
		{"cuda-13/root/nvidia/cu13/lib/libcublasLt.so.13", "libnvrtc.so.13"},
		{"cuda-13/root/nvidia/cu13/lib/libcublasLt.so.13", "libcuda.so.1"},
		{"dlopen/cu13/root/nvidia/cudnn/lib/libcudnn_adv.so.9", "libcublasLt.so.13"},
		{"dlopen/cu13/root/nvidia/cudnn/lib/libcudnn_engines_precompiled.so.9", "libnvrtc.so.13"},
		{"dlopen/cu12/root/nvidia/cudnn/lib/libcudnn_graph.so.9", "libnvrtc.so.%d"},
		{"dlopen/cu12/root/nvidia/cudnn/lib/libcudnn_ext.so.9", "libnvrtc.so."},
		{"dlopen/cu12/root/nvidia/nccl/lib/libnccl.so.2", "libnvidia-ml.so.1"},
		{"dlopen/cu13/root/nvidia/nccl/lib/libnccl.so.2", "libibverbs.so.1"},
		{"dlopen/cu12/root/nvidia/cufile/lib/libcufile.so.0", "libnuma.so.%s"},
		{"dlopen/cu13/root/nvidia/cu13/lib/libcufile.so.0", "liburcu-bp.so"},
		{"dlopen/cuda-11.8/root/usr/lib/x86_64-linux-gnu/libcublasLt.so.11.11.3.6", "libnvrtc.so"},
	} {
		data, err := os.ReadFile(filepath.Join(dir, tc.path))
		if err != nil {
			t.Fatalf("%v (run scripts/fetch-real-cuda.sh %s)", err, dir)
		}
		info, err := elfinfo.Read(data)
		if err != nil {
			t.Fatalf("%s: %v", tc.path, err)
		}
		if slices.Contains(info.Needed, tc.name) {
			t.Errorf("%s: %s is DT_NEEDED, no runtime load", tc.path, tc.name)
		}
		i := slices.IndexFunc(info.RuntimeLoads, func(l features.RuntimeLoad) bool { return l.Name == tc.name })
		if i < 0 || !dlopen.IsLoad(info.RuntimeLoads[i].Confidence) {
			t.Errorf("%s: %s not found as a load", tc.path, tc.name)
			continue
		}
		l := info.RuntimeLoads[i]
		t.Logf("%s: %s (%s) %s at %#x: %q", filepath.Base(tc.path), l.Name, l.Confidence, l.Evidence[0].Section, l.Evidence[0].Offset, l.Evidence[0].String)
	}
}

// TestRuntimeLoadsPrescanned: detect searches a large library for ".so"
// while it reads it 128 KiB at a time (dlopen.Prescan); on every library
// of the hand lists that gives exactly what elfinfo.Read, which the
// hand lists measure, gives on the bytes in memory.
func TestRuntimeLoadsPrescanned(t *testing.T) {
	dir := testenv.RealCUDA(t)
	for _, set := range []string{"cuda-11.8", "cuda-12", "cuda-13"} {
		for _, hl := range readHandList(t, set) {
			data, err := os.ReadFile(filepath.Join(dir, hl.path))
			if err != nil {
				t.Fatalf("%s: %v", set, err)
			}
			pre := elfinfo.Prescan(data)
			if pre == nil {
				t.Errorf("%s: no prescan", hl.path)
				continue
			}
			for at := 0; at < len(data); at += 128 << 10 {
				pre.Feed(data[at:min(len(data), at+128<<10)])
			}
			want, wantErr := elfinfo.Read(data)
			got, gotErr := elfinfo.ReadPrescanned(data, pre)
			if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
				t.Errorf("%s: error %v, in memory %v", hl.path, gotErr, wantErr)
			}
			if !reflect.DeepEqual(got.RuntimeLoads, want.RuntimeLoads) {
				t.Errorf("%s: prescanned %v, in memory %v", hl.path, got.RuntimeLoads, want.RuntimeLoads)
			}
		}
	}
}
