/*
 * A fake CUDA driver for testing tcsim's interposer without a GPU: device
 * memory is host memory, and "kernels" are C functions looked up by name.
 * It is built as libcuda.so.1 by capture's tests; only the entry points the
 * interposer and testdata/prog.c use exist.
 *
 * Kernels (their PTX is in prog.c):
 *   scale(const float *x, float *y, unsigned n): y[i] = 2 * x[i]
 *   tmcopy(CUtensorMap map, float *out): out[i] = src[i] for 64 floats,
 *       where src is the map's global address
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;
typedef struct fmod_ { int dummy; } *CUmodule;
typedef struct ffunc_ { const char *name; } *CUfunction;
typedef void *CUstream;

static struct ffunc_ scale_fn = {"scale"}, tmcopy_fn = {"tmcopy"};
static struct fmod_ the_module;

typedef struct { CUdeviceptr base; size_t size; } alloc;
static alloc allocs[256];
static int nallocs;

CUresult cuInit(unsigned f) { (void)f; return 0; }
CUresult cuDriverGetVersion(int *v) { *v = 13000; return 0; }
CUresult cuCtxGetDevice(int *d) { *d = 0; return 0; }
CUresult cuDeviceGetName(char *n, int len, int d) { (void)d; strncpy(n, "Fake GPU (host memory)", len); return 0; }
CUresult cuDeviceGetAttribute(int *v, int a, int d) { (void)d; *v = a == 75 ? 9 : 0; return 0; }
CUresult cuCtxSynchronize(void) { return 0; }

CUresult cuModuleLoadData(CUmodule *m, const void *img) { (void)img; *m = &the_module; return 0; }
CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name) {
	(void)m;
	if (strcmp(name, "scale") == 0) { *f = &scale_fn; return 0; }
	if (strcmp(name, "tmcopy") == 0) { *f = &tmcopy_fn; return 0; }
	return 500;
}
CUresult cuFuncGetName(const char **name, CUfunction f) { *name = f->name; return 0; }
CUresult cuFuncSetAttribute(CUfunction f, int attr, int v) { (void)f; (void)attr; (void)v; return 0; }
CUresult cuFuncGetParamInfo(CUfunction f, size_t i, size_t *off, size_t *size) {
	static const size_t so[] = {0, 8, 16}, ss[] = {8, 8, 4};
	static const size_t to[] = {0, 128}, ts[] = {128, 8};
	if (f == &scale_fn && i < 3) { *off = so[i]; *size = ss[i]; return 0; }
	if (f == &tmcopy_fn && i < 2) { *off = to[i]; *size = ts[i]; return 0; }
	return 1;
}

CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n) {
	void *m = aligned_alloc(256, (n + 255) / 256 * 256);
	if (!m || nallocs == 256) return 2;
	memset(m, 0, n);
	*p = (CUdeviceptr)(uintptr_t)m;
	allocs[nallocs++] = (alloc){*p, n};
	return 0;
}
CUresult cuMemFree_v2(CUdeviceptr p) {
	for (int i = 0; i < nallocs; i++)
		if (allocs[i].base == p) { allocs[i] = allocs[--nallocs]; free((void *)(uintptr_t)p); return 0; }
	return 1;
}
CUresult cuMemGetAddressRange_v2(CUdeviceptr *base, size_t *size, CUdeviceptr p) {
	for (int i = 0; i < nallocs; i++)
		if (p >= allocs[i].base && p < allocs[i].base + allocs[i].size) { *base = allocs[i].base; *size = allocs[i].size; return 0; }
	return 1;
}
CUresult cuMemcpyHtoD_v2(CUdeviceptr d, const void *h, size_t n) { memcpy((void *)(uintptr_t)d, h, n); return 0; }
CUresult cuMemcpyDtoH_v2(void *h, CUdeviceptr d, size_t n) { memcpy(h, (void *)(uintptr_t)d, n); return 0; }

CUresult cuTensorMapEncodeTiled(void *map, int dt, unsigned rank, void *addr, const uint64_t *dims,
				const uint64_t *strides, const unsigned *box, const unsigned *estr, int il, int sw,
				int l2, int oob) {
	(void)strides; (void)estr;
	uint64_t *w = map;
	memset(map, 0, 128);
	w[0] = (uint64_t)(uintptr_t)addr;
	w[1] = dims[0];
	w[2] = ((uint64_t)dt << 32) | rank;
	w[3] = box[0];
	w[4] = ((uint64_t)il << 48) | ((uint64_t)sw << 32) | ((uint64_t)l2 << 16) | (uint64_t)oob;
	return 0;
}

static void run(CUfunction f, unsigned n_blocks, unsigned n_threads, void **params, void **extra) {
	(void)extra;
	if (f == &scale_fn) {
		const float *x = *(const float **)params[0];
		float *y = *(float **)params[1];
		unsigned n = *(unsigned *)params[2];
		for (unsigned i = 0; i < n && i < n_blocks * n_threads; i++) y[i] = 2.0f * x[i];
	} else if (f == &tmcopy_fn) {
		const uint64_t *map = params[0];
		const float *src = (const float *)(uintptr_t)map[0];
		float *out = *(float **)params[1];
		for (int i = 0; i < 64; i++) out[i] = src[i];
	}
}

CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
			unsigned smem, CUstream s, void **params, void **extra) {
	(void)smem; (void)s;
	run(f, gx * gy * gz, bx * by * bz, params, extra);
	return 0;
}

typedef struct { uint32_t id; char pad[4]; char value[64]; } attr_t;
typedef struct {
	unsigned gx, gy, gz, bx, by, bz, smem;
	CUstream s;
	attr_t *attrs;
	unsigned nattrs;
} config_t;

CUresult cuLaunchKernelEx(const config_t *c, CUfunction f, void **params, void **extra) {
	run(f, c->gx * c->gy * c->gz, c->bx * c->by * c->bz, params, extra);
	return 0;
}

/* cuGetProcAddress as the CUDA runtime uses it: by name, from a table (a
 * real driver does not go through dlsym either). */
CUresult cuGetProcAddress_v2(const char *sym, void **pfn, int version, unsigned long long flags, int *status);
CUresult cuGetProcAddress(const char *sym, void **pfn, int version, unsigned long long flags);
static const struct { const char *name; void *fn; } table[] = {
	{"cuInit", (void *)cuInit}, {"cuDriverGetVersion", (void *)cuDriverGetVersion},
	{"cuCtxGetDevice", (void *)cuCtxGetDevice}, {"cuDeviceGetName", (void *)cuDeviceGetName},
	{"cuDeviceGetAttribute", (void *)cuDeviceGetAttribute}, {"cuCtxSynchronize", (void *)cuCtxSynchronize},
	{"cuModuleLoadData", (void *)cuModuleLoadData}, {"cuModuleGetFunction", (void *)cuModuleGetFunction},
	{"cuFuncGetName", (void *)cuFuncGetName}, {"cuFuncSetAttribute", (void *)cuFuncSetAttribute},
	{"cuFuncGetParamInfo", (void *)cuFuncGetParamInfo}, {"cuMemAlloc", (void *)cuMemAlloc_v2},
	{"cuMemFree", (void *)cuMemFree_v2}, {"cuMemGetAddressRange", (void *)cuMemGetAddressRange_v2},
	{"cuMemcpyHtoD", (void *)cuMemcpyHtoD_v2}, {"cuMemcpyDtoH", (void *)cuMemcpyDtoH_v2},
	{"cuTensorMapEncodeTiled", (void *)cuTensorMapEncodeTiled}, {"cuLaunchKernel", (void *)cuLaunchKernel},
	{"cuLaunchKernelEx", (void *)cuLaunchKernelEx}, {"cuGetProcAddress", (void *)cuGetProcAddress_v2},
};
CUresult cuGetProcAddress_v2(const char *sym, void **pfn, int version, unsigned long long flags, int *status) {
	(void)version; (void)flags;
	for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
		if (strcmp(table[i].name, sym) == 0) {
			*pfn = table[i].fn;
			if (status) *status = 0;
			return 0;
		}
	}
	*pfn = NULL;
	if (status) *status = 1;
	return 500;
}
CUresult cuGetProcAddress(const char *sym, void **pfn, int version, unsigned long long flags) {
	return cuGetProcAddress_v2(sym, pfn, version, flags, NULL);
}
