// Package gpu runs PTX on a real NVIDIA GPU through the CUDA driver API,
// loaded at run time with purego (no cgo, no CUDA toolkit at build time).
//
// Open dlopens libcuda.so.1 (or LibraryName, or $TCSIM_LIBCUDA), binds
// the driver's versioned entry points (cuMemAlloc_v2 and friends; see
// driver.go for the list and how each is found) and retains the device's
// primary context. Without a driver, Open returns an error whose message
// is exactly "no NVIDIA driver found (libcuda.so.1)" (errors.Is
// ErrNoDriver).
//
// The pieces: Device.LoadPTX JIT-compiles a module and keeps the JIT's
// info log (ptxas -v output and advisories such as C7515, which
// Advisories picks out); Module.Function finds a kernel; Device.Alloc and
// Buffer move memory; Device.EncodeTiled builds a CUtensorMap;
// Function.Launch launches, with clusters through cuLaunchKernelEx;
// Event times. Device.Run does all of it for a launch.Launch, the
// launch description shared with the simulator.
//
// Every driver failure is an *Error carrying the CUresult's name; JIT
// failures are *JITError, whose text maps ptxas's PTX line numbers to
// file:line. Nothing in this package panics on driver errors.
package gpu
