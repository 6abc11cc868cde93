package download

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/nix-cuda/cuda-redist-find-features/lib/manifest"
)

// indexPage lists n manifest versions, newest first (the order costs a
// sort the most work), some twice.
func indexPage(n int) string {
	var b strings.Builder
	b.WriteString("<html><body>\n")
	for i := n - 1; i >= 0; i-- {
		fmt.Fprintf(&b, "<a href='redistrib_%d.%d.%d.json'>x</a>\n", i/10000, i/100%100, i%100)
		if i%1000 == 0 {
			fmt.Fprintf(&b, "<a href=\"./redistrib_%d.%d.%d.json\">again</a>\n", i/10000, i/100%100, i%100)
		}
	}
	b.WriteString("</body></html>\n")
	return b.String()
}

// localServer serves page on 127.0.0.1 only.
func localServer(t testing.TB, page string) *httptest.Server {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, page)
	}))
	srv.Listener.Close()
	srv.Listener = l
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

// TestVersionsOfAHugeListing: a page listing 200,000 versions is read
// whole, each version once, in order.
func TestVersionsOfAHugeListing(t *testing.T) {
	const n = 200_000
	srv := localServer(t, indexPage(n))
	got, err := Versions(context.Background(), srv.Client(), srv.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != n {
		t.Fatalf("%d versions, want %d", len(got), n)
	}
	if got[0] != "0.0.0" || got[1] != "0.0.1" || got[100] != "0.1.0" || got[n-1] != "19.99.99" {
		t.Errorf("order: %v ... %v", got[:3], got[n-1])
	}
}

func BenchmarkVersions(b *testing.B) {
	srv := localServer(b, indexPage(200_000))
	for range b.N {
		if _, err := Versions(context.Background(), srv.Client(), srv.URL+"/"); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzListedVersions: whatever a server sends, each version found is
// linked in the page, appears once, and the list is sorted.
func FuzzListedVersions(f *testing.F) {
	f.Add([]byte(indexPage(50)))
	f.Add([]byte(`<a href="redistrib_1.2.3.json"><a href='./redistrib_1.2.3.4.json'><a href="redistrib_99999999999999999999.0.0.json">`))
	f.Fuzz(func(t *testing.T, page []byte) {
		got := listedVersions(page)
		seen := map[string]bool{}
		for _, v := range got {
			if seen[v] {
				t.Fatalf("%s listed twice", v)
			}
			seen[v] = true
			if !strings.Contains(string(page), "redistrib_"+v+".json") {
				t.Fatalf("%s is not linked in the page", v)
			}
		}
		sorted := append([]string(nil), got...)
		manifest.SortVersions(sorted)
		if strings.Join(sorted, " ") != strings.Join(got, " ") {
			t.Fatalf("not sorted: %v", got)
		}
	})
}
