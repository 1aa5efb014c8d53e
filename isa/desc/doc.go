// Package desc encodes, decodes, explains and checks the descriptors that
// tell the tensor cores where their operands are: the sm_90a wgmma
// shared-memory matrix descriptor (WGMMA), the sm_100a tcgen05
// shared-memory descriptor (TCGen05Smem) and the tcgen05 instruction
// descriptor (IDesc). Footprint computes which shared-memory bytes every
// core matrix of an operand reads under a descriptor, with the swizzle
// applied, and render.DrawFootprint draws it.
//
// # Field tables
//
// wgmma shared-memory matrix descriptor (PTX ISA 9.7.15.5.1.2.2), 64 bits:
//
//	0-13   start address, (addr & 0x3FFFF) >> 4
//	16-29  leading dimension byte offset (LBO) >> 4
//	32-45  stride dimension byte offset (SBO) >> 4
//	49-51  base offset
//	62-63  swizzle: 0 none, 1 128B, 2 64B, 3 32B
//	others unused (0)
//
// tcgen05 shared-memory descriptor (9.7.16.4.1), 64 bits:
//
//	0-13   start address >> 4
//	16-29  LBO >> 4 (absolute mode: an address >> 4)
//	32-45  SBO >> 4
//	46-48  fixed 0b001 (the "version")
//	49-51  base offset
//	52     LBO mode: 0 relative, 1 absolute (sm_103a)
//	53-60  fixed 0
//	61-63  swizzle: 0 none, 1 128B with 32-byte atomicity, 2 128B, 4 64B, 6 32B
//
// tcgen05 instruction descriptor (9.7.16.4.2), 32 bits: see IDesc.
//
// # Meaning of LBO and SBO
//
// In units of 16-byte rows of 8-row core matrices (ISA 9.7.16.3, and the
// canonical layouts of CuTe's make_gmma_desc / make_umma_desc):
//
//	K-major,  no swizzle: LBO = step between core matrices along K, SBO = along M/N
//	K-major,  swizzled:   LBO unused (assumed 1), SBO = step between 8-row groups along M/N
//	MN-major, no swizzle: LBO = step between core matrices along K, SBO = along M/N
//	MN-major, swizzled:   LBO = step between swizzle atoms along M/N, SBO = step between 8-row groups along K
//
// # Where CUTLASS and the ISA differ
//
// The ISA wins, and the differences are noted where they matter:
//   - wgmma base offset: the ISA says it is valid for every swizzle mode
//     but none; CUTLASS's comment says 128B and 64B only. 32B is checked too.
//   - Block-scaled instruction descriptors: the ISA keeps M >> 7 in bits
//     27-28 and reserves 24-26; CUTLASS's bitfield has M >> 4 in 24-28. They
//     agree for the only legal M (128 and 256); M = 64 is rejected.
//   - kind::mxf8f6f4 bit 31 is reserved in the ISA; CUTLASS calls it k_size.
//     kind::mxf4 and mxf4nvf4 have a 2-bit B type (10-11) in the ISA.
//   - The tcgen05 version field is 3 bits (46-48 = 0b001) in the ISA, 2 bits
//     in CUTLASS; bit 48 must be 0 either way.
//   - 128B swizzle with 32-byte atomicity is MN-major only in the ISA's atom
//     table (and CUTLASS); another ISA table lists every mode for K-major. It
//     is treated as invalid for K-major.
//   - Some copies of the ISA print the tcgen05 fixed bits 53-60 as
//     "0xb00000000"; it is 0b00000000, and 0xB0 there is reported.
//
// Everything about sm_100a here is modelled from the ISA and CUTLASS and is
// not hardware-verified; the sm_90a codec is checked against the
// descriptors of tcsim's example kernels, which ran correctly on an H100.
// How wgmma uses the base offset was measured on an H100 (tcsim desc
// probe, fixtures/desc): the swizzle phase of each row is
// ((addr >> 7) - base offset), so 0 reads the pattern TMA writes and the
// ISA's (addr >> 7) & 7 anchors the pattern at the start address instead
// (see Footprint and the base-offset-shift finding).
package desc
