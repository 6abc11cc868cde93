// Package fatbin lists the device code images in NVIDIA fatbin containers,
// the payload of the ELF sections .nv_fatbin and __nv_relfatbin. It reads
// what `cuobjdump FILE` prints as `arch = sm_XX` without running it.
//
// Everything it reports comes from the entry headers: the architecture,
// its `a` suffix (flag 0x100000), the payload's compression. No payload is
// decoded, so LZ4 (CUDA 11/12) and ZSTD (CUDA 13) payloads read alike. The
// layout (docs/fatbin.md) was verified against cuobjdump 11.8 and
// 12.5 on real CUDA libraries. All fields are little-endian: fatbins are
// written for NVIDIA GPUs, whatever the host.
package fatbin
