package nixfix

import (
	"errors"
	"strings"
	"testing"
)

const plainFile = `{
  lib,
  buildRedist,
}:
buildRedist {
  redistName = "cuda";
  pname = "cuda_cccl";

  outputs = [ "out" ];
}
`

func TestLicenceOf(t *testing.T) {
	for _, tc := range []struct {
		text, want string
		found      bool
	}{
		{plainFile, "", false},
		{strings.Replace(plainFile, `outputs = [ "out" ];`, `outputs = [ "out" ];
  meta.license = lib.licenses.nvidiaCudaRedist;`, 1), "lib.licenses.nvidiaCudaRedist", true},
		{strings.Replace(plainFile, `outputs = [ "out" ];`, `outputs = [ "out" ];
  meta = {
    description = "x; y";
    platforms = { license = "not this"; };
    license = _cuda.lib.licenses.cudnn;
  };`, 1), "_cuda.lib.licenses.cudnn", true},
		{strings.Replace(plainFile, `outputs = [ "out" ];`, `outputs = [ "out" ];
  meta.description = "no licence";`, 1), "", false},
	} {
		got, found, err := LicenceOf(tc.text)
		if err != nil || got != tc.want || found != tc.found {
			t.Errorf("LicenceOf = %q, %v, %v; want %q, %v\n%s", got, found, err, tc.want, tc.found, tc.text)
		}
	}
}

func TestSetLicence(t *testing.T) {
	// No meta: meta.license after the last binding, and _cuda taken.
	out, err := SetLicence(plainFile, "_cuda.lib.licenses.cudnn")
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  _cuda,\n  lib,\n  buildRedist,\n}:\nbuildRedist {\n  redistName = \"cuda\";\n  pname = \"cuda_cccl\";\n\n  outputs = [ \"out\" ];\n  meta.license = _cuda.lib.licenses.cudnn;\n}\n"
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	if got, _, _ := LicenceOf(out); got != "_cuda.lib.licenses.cudnn" {
		t.Errorf("reads back %q", got)
	}
	// An existing licence is replaced, inside meta; lib is taken already.
	withMeta := strings.Replace(plainFile, `outputs = [ "out" ];`, "outputs = [ \"out\" ];\n  meta = {\n    description = \"d\";\n    license = lib.licenses.unfree;\n  };", 1)
	out, err = SetLicence(withMeta, "lib.licenses.nvidiaCudaRedist")
	if err != nil || !strings.Contains(out, "    license = lib.licenses.nvidiaCudaRedist;\n") || strings.Contains(out, "unfree") || strings.Count(out, "lib,") != 1 {
		t.Errorf("%v\n%s", err, out)
	}
	// meta without a licence: one line added at its end.
	noLic := strings.Replace(plainFile, `outputs = [ "out" ];`, "outputs = [ \"out\" ];\n  meta = {\n    description = \"d\";\n  };", 1)
	out, err = SetLicence(noLic, "lib.licenses.mit")
	if err != nil || !strings.Contains(out, "    description = \"d\";\n    license = lib.licenses.mit;\n  };") {
		t.Errorf("%v\n%s", err, out)
	}
}

func TestSwitchPname(t *testing.T) {
	out, err := SwitchPname(plainFile, "cuda_cccl", "cccl", "13.3")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, `pname = if cudaAtLeast "13.3" then "cccl" else "cuda_cccl";`) || !strings.HasPrefix(out, "{\n  cudaAtLeast,\n  lib,") {
		t.Errorf("got\n%s", out)
	}
	// Switched already: refused, the file left alone.
	again, err := SwitchPname(out, "cuda_cccl", "cccl", "13.3")
	var r *Refusal
	if !errors.As(err, &r) || again != out {
		t.Errorf("second switch: %v", err)
	}
}
