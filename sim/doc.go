// Package sim is tcsim's functional simulator: per-thread machine state,
// the semantics of PTX instructions, the bit-exact tensor-core datapath,
// the async units (wgmma, TMA, mbarrier, tcgen05) and the hazard checker
// that judges a kernel against the PTX ISA's protocol rules.
package sim
