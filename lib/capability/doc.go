// Package capability holds, in one place, the rules for what GPU code runs
// where: given the SASS and PTX targets of a library (cuobjdump's names,
// sm_90, sm_90a, sm_100f) and a GPU's compute capability ("10.3"), Of says
// whether the GPU runs SASS as is, JIT-compiles PTX, or cannot run the
// library's device code at all. It also fixes the order of target names.
//
// The rules are NVIDIA's, quoted with their sources in
// docs/compatibility.md:
//
//   - SASS sm_XY runs on X.Z for every Z >= Y (same major);
//   - SASS sm_XYf runs on the members of its family (NVIDIA's table:
//     sm_100f on 10.0 and 10.3, sm_120f on 12.0 and 12.1, ...);
//   - SASS sm_XYa runs on X.Y only;
//   - PTX sm_XY is JIT-compiled for every capability >= X.Y, any major;
//   - PTX sm_XYf for the members of its family, PTX sm_XYa for X.Y only.
package capability
