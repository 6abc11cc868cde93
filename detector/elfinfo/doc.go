// Package elfinfo reads what detect needs from ELF files and static
// archives: the dynamic section (what `patchelf --print-soname` and
// `patchelf --print-needed` print) and the GPU architectures of embedded
// fatbins (what `cuobjdump FILE` lists as `arch = sm_XX`).
//
// It works on byte slices (detect maps each file once) and never
// executes or relocates anything, so it reads archives of any platform.
package elfinfo
