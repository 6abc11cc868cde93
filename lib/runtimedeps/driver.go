package runtimedeps

import "strings"

// driverLibraries are the libraries the NVIDIA driver package ships,
// which every redist package reaches through Nixpkgs' driver link
// (autoAddDriverRunpath puts /run/opengl-driver/lib on each RUNPATH),
// each with why it is the driver's. A load of one of them (or of its
// unversioned name) resolves to the driver, before any package of the
// release: cuda_compat and the stubs provide a libcuda.so too, but what
// a library opens at run time is the installed driver's.
var driverLibraries = []struct{ soname, reason string }{
	{"libcuda.so.1", "the CUDA driver API: the driver's user-mode library"},
	{"libcudadebugger.so.1", "the driver's GPU debugger backend (cuda-gdb, CUPTI)"},
	{"libnvidia-ml.so.1", "NVML, the management library: the driver ships it with nvidia-smi"},
	{"libnvidia-ptxjitcompiler.so.1", "the driver's PTX JIT compiler"},
	{"libnvidia-nvvm.so.4", "the driver's NVVM, for JIT LTO"},
	{"libnvcuvid.so.1", "the video decoder: shipped with the driver, not the toolkit"},
	{"libnvidia-encode.so.1", "the video encoder (NVENC): shipped with the driver"},
	{"libnvidia-cfg.so.1", "the driver's configuration library"},
	{"libnvidia-tileiras.so.1", "the driver's tile IR assembler (CUDA 13)"},
	{"libnvidia-opencl.so.1", "the driver's OpenCL implementation"},
	{"libnvoptix.so.1", "OptiX: its implementation ships with the driver"},
	{"libGLX_nvidia.so.0", "the driver's GLX vendor library (glvnd)"},
	{"libEGL_nvidia.so.0", "the driver's EGL vendor library (glvnd)"},
	{"libnvidia-vksc-core.so.1", "the driver's Vulkan SC core"},
	{"libnvidia-fbc.so.1", "the frame buffer capture library of the driver"},
}

// driverMatch returns the driver's sonames a load matches, and the
// reason of the first.
func driverMatch(name, glob string) ([]string, string) {
	var out []string
	reason := ""
	for _, d := range driverLibraries {
		if Matches(name, glob, d.soname) {
			if reason == "" {
				reason = d.reason
			}
			out = append(out, d.soname)
		}
	}
	return out, reason
}

// DriverSonames lists the driver's libraries (for the documentation and
// the tests).
func DriverSonames() []string {
	out := make([]string, len(driverLibraries))
	for i, d := range driverLibraries {
		out[i] = d.soname
	}
	return out
}

// Matches reports whether a load (its name, or its glob when it is a
// template) can be the library soname: the name itself, an unversioned
// name the soname extends by a version (libcuda.so → libcuda.so.1), or
// the glob.
func Matches(name, glob, soname string) bool {
	if glob != "" {
		return globMatch(glob, soname)
	}
	if name == soname {
		return true
	}
	return strings.HasSuffix(name, ".so") && strings.HasPrefix(soname, name+".")
}
