package manifest

import "testing"

func TestRedistName(t *testing.T) {
	tests := []struct{ url, dir, want string }{
		{"https://example.org/compute/cuda/redist", "x", "cuda"},
		{"https://example.org/compute/cudnn/redist/", "x", "cudnn"},
		{"file:///srv/mirror/compute/cutensor/redist", "manifests", "cutensor"},
		{"file:///srv/mirror", "/tmp/some/cusparselt", "cusparselt"},
		{"https://example.org/compute/cuda/redist/extra", "/m/tensorrt/", "tensorrt"},
	}
	for _, tt := range tests {
		if got := RedistName(tt.url, tt.dir); got != tt.want {
			t.Errorf("RedistName(%q, %q) = %q, want %q", tt.url, tt.dir, got, tt.want)
		}
	}
}
