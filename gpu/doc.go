// Package gpu runs PTX on a real NVIDIA GPU through the CUDA driver API,
// loaded at run time with purego (no cgo, no CUDA toolkit at build time).
package gpu
