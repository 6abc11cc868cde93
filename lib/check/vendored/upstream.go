package vendored

import (
	"path"
	"strings"

	"github.com/nix-cuda/cuda-redist-find-features/lib/features"
)

// upstreamByBase names the upstream project of a library base name (the
// name without lib and .so…), for names that do not say it themselves.
var upstreamByBase = map[string]string{
	"ssl": "OpenSSL", "crypto": "OpenSSL", "ssh": "libssh", "ssh2": "libssh2",
	"stdc++": "libstdc++", "gcc_s": "libgcc", "gomp": "libgomp", "z": "zlib",
	"icuuc": "ICU", "icui18n": "ICU", "icudata": "ICU", "icuio": "ICU",
	"jpeg": "libjpeg-turbo", "turbojpeg": "libjpeg-turbo", "png16": "libpng",
	"arrow": "Apache Arrow", "parquet": "Apache Arrow", "protobuf": "Protocol Buffers",
	"sqlite3": "SQLite", "papi": "PAPI", "GL": "libglvnd", "EGL": "libglvnd", "GLX": "libglvnd",
	"OpenGL": "libglvnd", "GLdispatch": "libglvnd", "glapi": "Mesa", "gbm": "Mesa",
}

// upstreamByVersion names the project of a version definition prefix.
var upstreamByVersion = []struct{ prefix, name string }{
	{"OPENSSL_", "OpenSSL"}, {"GLIBCXX_", "libstdc++"}, {"CXXABI_", "libstdc++"}, {"GCC_", "libgcc"},
	{"Qt_6", "Qt 6"}, {"Qt_5", "Qt 5"}, {"LIBSSH_", "libssh"}, {"ZLIB_", "zlib"},
}

// Upstream is the likely upstream name of a library: Qt6Core for
// libQt6Core.so.6, Boost for libboost_*, a Qt 6 plugin (its folder) for a
// library of a plugins folder that needs Qt 6, else what its name or its
// version definitions say, else its base name.
func Upstream(lib features.Library) string {
	name := lib.Soname
	if name == "" {
		name = path.Base(lib.Path)
	}
	base := strings.TrimPrefix(name, "lib")
	if i := strings.Index(base, ".so"); i >= 0 {
		base = base[:i]
	}
	base = strings.TrimSuffix(strings.TrimSuffix(base, "-shared"), "_shared")
	switch {
	case strings.HasPrefix(base, "Qt6") || strings.HasPrefix(base, "Qt5"):
		return base
	case strings.HasPrefix(base, "boost_"):
		return "Boost"
	case strings.HasPrefix(base, "python3"):
		return "Python"
	}
	if qt := qtNeeded(lib.Needed); qt != "" && inPluginFolder(lib.Path) {
		return qt + " plugin (" + path.Base(path.Dir(lib.Path)) + ")"
	}
	if u, ok := upstreamByBase[base]; ok {
		return u
	}
	for _, v := range lib.VersionDefinitions {
		for _, u := range upstreamByVersion {
			if strings.HasPrefix(v, u.prefix) {
				return u.name
			}
		}
	}
	return base
}

// qtNeeded is "Qt 6" or "Qt 5" when a library needs that Qt's libraries.
func qtNeeded(needed []string) string {
	for _, n := range needed {
		switch {
		case strings.HasPrefix(n, "libQt6"):
			return "Qt 6"
		case strings.HasPrefix(n, "libQt5"):
			return "Qt 5"
		}
	}
	return ""
}

func inPluginFolder(p string) bool {
	for _, c := range strings.Split(path.Dir(p), "/") {
		if strings.EqualFold(c, "plugins") {
			return true
		}
	}
	return false
}
