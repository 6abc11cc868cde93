package nixfix

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const nsightNix = `{ buildRedist, qt6 }:
buildRedist {
  redistName = "cuda";
  pname = "nsight_systems";

  outputs = [ "out" ];

  buildInputs = [ qt6.qtbase ];
}
`

// TestProposeRemovals: the postPatch goes after outputs, in the file's
// layout, lists the paths in rmPatterns and loops over them; a file with
// a postPatch, or an unsafe path, is refused and left alone.
func TestProposeRemovals(t *testing.T) {
	got, err := ProposeRemovals(nsightNix, []string{"host-linux-x64/libQt6Core.so.6", "host-linux-x64/Plugins/imageformats/libqgif.so"})
	if err != nil {
		t.Fatal(err)
	}
	want := `{ buildRedist, qt6 }:
buildRedist {
  redistName = "cuda";
  pname = "nsight_systems";

  outputs = [ "out" ];

  postPatch = ''
    # Free libraries NVIDIA ships its own copies of (cuda-redist-find-features
    # print-vendored); Nixpkgs' builds, in buildInputs, stand in for them.
    rmPatterns=(
      "host-linux-x64/libQt6Core.so.6"
      "host-linux-x64/Plugins/imageformats/libqgif.so"
    )
    for pattern in "''${rmPatterns[@]}"; do
      rm -rfv -- $pattern
    done
  '';

  buildInputs = [ qt6.qtbase ];
}
`
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ProposeRemovals (-want +got):\n%s", diff)
	}
	withPatch := strings.Replace(nsightNix, "outputs = [ \"out\" ];", "outputs = [ \"out\" ];\n  postPatch = \"true\";", 1)
	for _, c := range []struct {
		text, path, want string
	}{
		{withPatch, "host-linux-x64/libQt6Core.so.6", "it has a postPatch"},
		{nsightNix, "host-linux-x64/lib Qt.so", "cannot be written"},
		{nsightNix, "../etc/passwd", "cannot be written"},
		{nsightNix, "host/$(rm -rf ~).so", "cannot be written"},
	} {
		out, err := ProposeRemovals(c.text, []string{c.path})
		if err == nil || !strings.Contains(err.Error(), c.want) || out != c.text {
			t.Errorf("ProposeRemovals(%q): err %v, want %q and the text as it was", c.path, err, c.want)
		}
	}
}
