package dlopen

import (
	"debug/elf"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
)

// Bounds on what one file can make Scan keep (docs/detection.md,
// "Bounds"). Real NVIDIA libraries stay far below each: CUPTI names about
// 30 libraries, no name has more than 5 strings, the longest string kept
// is a 150-byte error message.
const (
	// MaxLoads bounds the distinct names kept per file; the strings and
	// note entries of further names are counted, not kept.
	MaxLoads = 256
	// MaxEvidence bounds the places kept per name; the rest are counted.
	MaxEvidence = 4
	// MaxStringLen bounds the bytes of one evidence string (and of a
	// note's feature, description and priority) kept.
	MaxStringLen = 256
	// MaxScanString is the longest run of text looked at around a
	// ".so": a name inside a longer run is a mention, never a load.
	MaxScanString = 4096
	// MaxNoteBytes bounds the bytes of note sections read per file, and
	// MaxNoteJSON one note's JSON; MaxNoteDepth its nesting (a list of
	// objects holding a list of sonames is 3).
	MaxNoteBytes = 1 << 20
	MaxNoteJSON  = 64 << 10
	MaxNoteDepth = 8
)

// Confidence levels, strongest first.
const (
	Declared = "declared"
	High     = "high"
	Medium   = "medium"
	Low      = "low"
)

// Evidence kinds (features.LoadEvidence.Kind).
const (
	KindNote       = "note"
	KindSoname     = "soname"
	KindTemplate   = "template"
	KindPrefix     = "prefix"
	KindPath       = "path"
	KindNearBinary = "nearBinary"
	KindMention    = "mention"
)

var rank = map[string]int{Declared: 4, High: 3, Medium: 2, Low: 1}

// IsLoad reports whether a confidence counts as a load: a mention alone
// (Low) does not.
func IsLoad(confidence string) bool { return rank[confidence] >= rank[Medium] }

// Result is what Scan found in one file.
type Result struct {
	// Loads are sorted by name.
	Loads []features.RuntimeLoad
	// Omitted counts the strings and note entries of names past
	// MaxLoads.
	Omitted int
	// Work counts the bytes of sections read (strings and notes): at
	// most the file's size, whatever its section headers say.
	Work int
	// looked is the collector's count, for the tests.
	looked int
}

// Scan reads the notes and the read-only data sections of an ELF file
// held in data (f is debug/elf's view of it); the fatbin containers a
// data section holds are not searched (sieve.go). Names equal to soname or
// to an entry of needed are left out. Compressed sections are not read
// (NVIDIA's never are). The error names what in the notes or section
// headers was malformed; what was found before is kept.
func Scan(f *elf.File, data []byte, soname string, needed []string) (Result, error) {
	return ScanPrescanned(f, data, soname, needed, nil)
}

// ScanPrescanned is Scan with the search for ".so" done already by pre,
// when pre was fed the whole file; else it searches itself.
func ScanPrescanned(f *elf.File, data []byte, soname string, needed []string, pre *Prescan) (Result, error) {
	if pre != nil && (pre.fed != len(data) || pre.overflow) {
		pre = nil
	}
	c := newCollector(soname, needed)
	var errs []error
	budget := len(data) // sections that overlap cost no more than the file
	noteBudget := MaxNoteBytes
	for _, sec := range f.Sections {
		isNote := sec.Type == elf.SHT_NOTE
		if !isNote && !stringSection(sec) {
			continue
		}
		if sec.Flags&elf.SHF_COMPRESSED != 0 {
			continue
		}
		if sec.Offset > uint64(len(data)) || sec.FileSize > uint64(len(data))-sec.Offset {
			errs = append(errs, fmt.Errorf("runtime loads: section %s runs past the end of the file", sec.Name))
			continue
		}
		body := data[sec.Offset : sec.Offset+sec.FileSize]
		if isNote {
			if len(body) > noteBudget {
				errs = append(errs, fmt.Errorf("runtime loads: note section %s: %d bytes, more than the %d bytes of notes read per file; its notes are not read", sec.Name, len(body), MaxNoteBytes))
				continue
			}
			noteBudget -= len(body)
			c.work += len(body)
			if err := c.scanNotes(sec.Name, body, sec.Offset, noteAlign(sec), f.ByteOrder); err != nil {
				errs = append(errs, fmt.Errorf("runtime loads: section %s: %w", sec.Name, err))
			}
			continue
		}
		if len(body) > budget {
			errs = append(errs, fmt.Errorf("runtime loads: section %s: the data sections read pass the file's %d bytes (section headers overlapping); the rest is not read", sec.Name, len(data)))
			break
		}
		budget -= len(body)
		c.work += len(body)
		c.scanSection(sec.Name, body, sec.Offset, pre)
	}
	return c.result(), errors.Join(errs...)
}

// scanSection reads the strings of one data section (body, at file
// offset base) around each ".so" pre found there, or searches it when
// pre is nil.
func (c *collector) scanSection(name string, body []byte, base uint64, pre *Prescan) {
	if pre == nil {
		c.scanStrings(name, body, base)
		return
	}
	r := c.readerFor(name, body, base)
	from, _ := slices.BinarySearch(pre.found, int(base))
	for _, at := range pre.found[from:] {
		if at >= int(base)+len(body) {
			break
		}
		r.at(at)
	}
}

// stringSection reports whether a section is allocated data the code
// reads (the read-only data, and the initialised data that may hold
// char arrays): .rodata, .lrodata, .data, .ldata and their .name.suffix
// variants, PROGBITS, not executable. Symbol and string tables (.dynstr:
// the dynamic section's own names), debug info, notes, fatbins and
// resource blobs are not evidence of a load.
func stringSection(sec *elf.Section) bool {
	if sec.Type != elf.SHT_PROGBITS || sec.Flags&elf.SHF_ALLOC == 0 || sec.Flags&elf.SHF_EXECINSTR != 0 {
		return false
	}
	for _, p := range []string{".rodata", ".lrodata", ".data", ".ldata"} {
		if sec.Name == p || strings.HasPrefix(sec.Name, p+".") {
			return true
		}
	}
	return false
}

// collector gathers evidence by name, within the bounds.
type collector struct {
	skip    map[string]bool
	byName  map[string]*features.RuntimeLoad
	omitted int
	work    int
	// looked counts the bytes scanStrings examined one by one around
	// each ".so" (the hostile tests bound it by the section's size).
	looked int
}

func newCollector(soname string, needed []string) *collector {
	skip := map[string]bool{}
	if soname != "" {
		skip[soname] = true
	}
	for _, n := range needed {
		skip[n] = true
	}
	return &collector{skip: skip, byName: map[string]*features.RuntimeLoad{}}
}

// add records one piece of evidence for name. Nothing is allocated
// for a name left out, past MaxLoads, or past MaxEvidence: made builds
// the glob and the evidence only when they are kept, so a section of
// millions of names costs its scan, not millions of strings.
func (c *collector) add(name []byte, confidence string, made func() (glob string, ev features.LoadEvidence)) *features.RuntimeLoad {
	if c.skip[string(name)] {
		return nil
	}
	l := c.byName[string(name)]
	if l == nil {
		if len(c.byName) == MaxLoads {
			c.omitted++
			return nil
		}
		l = &features.RuntimeLoad{Name: string(name), Confidence: confidence, Evidence: []features.LoadEvidence{}}
		c.byName[l.Name] = l
	}
	if rank[confidence] > rank[l.Confidence] {
		l.Confidence = confidence
	}
	if len(l.Evidence) < MaxEvidence {
		glob, ev := made()
		l.Glob = glob
		l.Evidence = append(l.Evidence, ev)
		return l
	}
	// Full: a stronger place replaces the weakest kept (the last of the
	// weakest), so four messages never crowd out the string itself.
	l.EvidenceOmitted++
	weakest := 0
	for i, e := range l.Evidence {
		if rank[kindConfidence[e.Kind]] <= rank[kindConfidence[l.Evidence[weakest].Kind]] {
			weakest = i
		}
	}
	if rank[confidence] > rank[kindConfidence[l.Evidence[weakest].Kind]] {
		glob, ev := made()
		l.Glob = glob
		l.Evidence[weakest] = ev
	}
	return l
}

// kindConfidence is the confidence each kind of evidence gives.
var kindConfidence = map[string]string{
	KindNote: Declared, KindSoname: High, KindTemplate: High, KindPrefix: High,
	KindPath: Medium, KindNearBinary: Medium, KindMention: Low,
}

func (c *collector) result() Result {
	r := Result{Omitted: c.omitted, Work: c.work, looked: c.looked}
	for _, l := range c.byName {
		// Strongest first, then in file order.
		sort.SliceStable(l.Evidence, func(i, j int) bool {
			a, b := l.Evidence[i], l.Evidence[j]
			if ra, rb := rank[kindConfidence[a.Kind]], rank[kindConfidence[b.Kind]]; ra != rb {
				return ra > rb
			}
			return a.Offset < b.Offset
		})
		r.Loads = append(r.Loads, *l)
	}
	sort.Slice(r.Loads, func(i, j int) bool { return r.Loads[i].Name < r.Loads[j].Name })
	return r
}

// keep is s cut to MaxStringLen bytes of valid UTF-8.
func keep(s []byte) string {
	s = s[:min(len(s), MaxStringLen)]
	return strings.ToValidUTF8(string(s), string(utf8.RuneError))
}
