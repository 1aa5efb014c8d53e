// Package launch describes one launch of a PTX kernel: its grid, block,
// cluster and dynamic shared memory, its parameters (scalars, buffers
// filled from files or seeded generators, tensor maps given by their
// encode arguments, raw bytes) and the buffers to read back. It has one
// text syntax, shared by command-line flags (LaunchFlags) and JSON launch
// files (ReadLaunch); see launch/README.md.
//
// A Launch is bound to a kernel with Bind, which takes the kernel's
// *ptx.Function (ParseKernel finds it in PTX source; the simulator binds
// the function it compiled): the Binding gives each parameter its
// declaration and offset in the parameter space, resolves references by
// index or name, and packs the values. The simulator (package sim), the
// GPU runner (package gpu) and the command line all bind this one way.
//
// The package has no GPU dependency. Recorded cases (kernel, launch,
// outputs, provenance) are package fixtures.
package launch
