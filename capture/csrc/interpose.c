/*
 * tcsim capture: a CUDA driver API interposer.
 *
 * `tcsim capture` compiles this file with the machine's C compiler into a
 * shared library and injects it with LD_PRELOAD. It watches module and
 * library loading, tensor-map encoding and allocations, and, for each
 * selected kernel launch, synchronizes, copies the device memory the
 * launch can reach to the host, launches, synchronizes and copies the same
 * memory again. Everything is written as raw files under
 * $TCSIM_CAPTURE_DIR; `tcsim capture` turns them into fixture cases.
 *
 * Programs reach the driver three ways, and all three are covered:
 *   - calling the exported symbols (cuLaunchKernel...): this library comes
 *     first in the global symbol scope;
 *   - dlopen("libcuda.so.1") + dlsym: dlsym is interposed and answers with
 *     the wrappers;
 *   - cuGetProcAddress(_v2), which the CUDA runtime uses for every entry
 *     point: interposed, it hands back the wrappers.
 *
 * The file is self-contained (no cuda.h): the few driver types it needs are
 * declared below with the layouts of the CUDA 12/13 headers.
 *
 * Environment:
 *   TCSIM_CAPTURE_DIR      where to write (required; nothing is captured without it)
 *   TCSIM_CAPTURE_KERNEL   POSIX extended regex on the kernel name (default: every kernel)
 *   TCSIM_CAPTURE_LAUNCH   capture only the N-th matching launch (0-based)
 *   TCSIM_CAPTURE_MAX      capture at most this many launches (default 8)
 *   TCSIM_CAPTURE_MAX_BUFFER  bytes: a larger allocation is left out (default 256 MiB)
 *   TCSIM_CAPTURE_MAX_TOTAL   bytes copied per launch, before + after (default 2 GiB)
 *   TCSIM_CAPTURE_LIBCUDA  the real driver library (default libcuda.so.1)
 *   TCSIM_CAPTURE_VERBOSE  1: log every interposed call to stderr
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <regex.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

/* ---- driver types (layouts as in cuda.h, CUDA 12/13) ---- */
typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUlib_st *CUlibrary;
typedef struct CUkern_st *CUkernel;
typedef struct CUstream_st *CUstream;
typedef struct CUmemPoolHandle_st *CUmemoryPool;
typedef unsigned long long CUmemGenericAllocationHandle;
typedef uint32_t cuuint32_t;
typedef uint64_t cuuint64_t;

#define CUDA_SUCCESS 0
#define CU_LAUNCH_ATTRIBUTE_COOPERATIVE 2
#define CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION 4
#define CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES 8
#define CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR 75
#define CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR 76
#define CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM (1ULL << 1)

typedef struct {
	uint32_t id;
	char pad[4];
	union {
		char raw[64];
		struct {
			unsigned int x, y, z;
		} clusterDim;
		int cooperative;
	} value;
} CUlaunchAttribute; /* 72 bytes */

typedef struct {
	unsigned int gridDimX, gridDimY, gridDimZ;
	unsigned int blockDimX, blockDimY, blockDimZ;
	unsigned int sharedMemBytes;
	CUstream hStream;
	CUlaunchAttribute *attrs;
	unsigned int numAttrs;
} CUlaunchConfig;

typedef struct {
	uint64_t opaque[16];
} CUtensorMap; /* 128 bytes, 64-byte aligned */

_Static_assert(sizeof(CUlaunchAttribute) == 72, "CUlaunchAttribute layout");
_Static_assert(__builtin_offsetof(CUlaunchConfig, numAttrs) == 48, "CUlaunchConfig layout");

/* ---- the real driver ---- */
static void *(*real_dlsym)(void *, const char *);
static void *libcuda;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static int verbose;

static void logf_(const char *fmt, ...) {
	va_list ap;
	va_start(ap, fmt);
	fputs("tcsim-capture: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* Functions the capture itself calls (never wrapped). */
static CUresult (*p_cuCtxSynchronize)(void);
static CUresult (*p_cuMemcpyDtoH)(void *, CUdeviceptr, size_t);
static CUresult (*p_cuMemGetAddressRange)(CUdeviceptr *, size_t *, CUdeviceptr);
static CUresult (*p_cuFuncGetParamInfo)(CUfunction, size_t, size_t *, size_t *);
static CUresult (*p_cuKernelGetParamInfo)(CUkernel, size_t, size_t *, size_t *);
static CUresult (*p_cuFuncGetName)(const char **, CUfunction);
static CUresult (*p_cuKernelGetName)(const char **, CUkernel);
static CUresult (*p_cuFuncGetAttribute)(int *, int, CUfunction);
static CUresult (*p_cuCtxGetDevice)(CUdevice *);
static CUresult (*p_cuDeviceGetName)(char *, int, CUdevice);
static CUresult (*p_cuDeviceGetAttribute)(int *, int, CUdevice);
static CUresult (*p_cuDriverGetVersion)(int *);
static CUresult (*p_cuStreamIsCapturing)(CUstream, int *);

/* ---- settings ---- */
static char outdir[4096];
static int enabled;
static regex_t kernel_re;
static int have_re;
static long want_launch = -1;
static long max_captures = 8;
static unsigned long long max_buffer = 256ULL << 20;
static unsigned long long max_total = 2ULL << 30;

/* ---- state ---- */
typedef struct {
	const void *ptr;  /* the caller's image (may be gone) */
	unsigned char *copy; /* our copy, or NULL for a large image */
	size_t size;
	char file[64];    /* images/<hash>.bin once written */
	const char *kind; /* ptx, elf, fatbin */
	char path[1024];  /* the file it was loaded from, when known */
} image_t;

typedef struct {
	void *handle; /* CUmodule or CUlibrary */
	image_t *img;
} modrec_t;

typedef struct {
	void *handle; /* CUfunction or CUkernel */
	void *owner;  /* CUmodule or CUlibrary */
	char *name;
	int is_kernel; /* a CUkernel (library API) */
	int max_dyn_smem;
} funcrec_t;

typedef struct {
	CUdeviceptr base;
	size_t size;
	const char *how;
} alloc_t;

typedef struct {
	unsigned char bytes[128];
	char *json; /* the encode arguments, as a JSON object */
	CUdeviceptr addr;
	unsigned long long extent; /* bytes from addr the map can touch */
} tmaprec_t;

static modrec_t *mods;
static size_t nmods, capmods;
static funcrec_t *funcs;
static size_t nfuncs, capfuncs;
static alloc_t *allocs;
static size_t nallocs, capallocs;
static tmaprec_t *tmaps;
static size_t ntmaps, captmaps;
static long nlaunches, nmatched, ncaptured;
static int wrote_process;

static __thread char *pending_note; /* from tcsim_capture_note */

#define GROW(arr, n, cap)                                              \
	do {                                                           \
		if ((n) == (cap)) {                                    \
			size_t nc = (cap) ? 2 * (cap) : 64;            \
			void *np = realloc((arr), nc * sizeof(*(arr))); \
			if (!np) abort();                              \
			(arr) = np;                                    \
			(cap) = nc;                                    \
		}                                                      \
	} while (0)

static uint64_t fnv64(const unsigned char *p, size_t n) {
	uint64_t h = 1469598103934665603ULL;
	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 1099511628211ULL;
	}
	return h;
}

static int mkdirs(const char *path) {
	char tmp[4096];
	snprintf(tmp, sizeof tmp, "%s", path);
	for (char *p = tmp + 1; *p; p++) {
		if (*p == '/') {
			*p = 0;
			mkdir(tmp, 0755);
			*p = '/';
		}
	}
	if (mkdir(tmp, 0755) != 0 && errno != EEXIST) return -1;
	return 0;
}

static int write_file(const char *path, const void *data, size_t n) {
	FILE *f = fopen(path, "wb");
	if (!f) {
		logf_("cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	size_t w = n ? fwrite(data, 1, n, f) : 0;
	int bad = (w != n);
	if (fclose(f) != 0) bad = 1;
	if (bad) logf_("short write to %s", path);
	return bad ? -1 : 0;
}

/* json_str writes s as a JSON string. */
static void json_str(FILE *f, const char *s) {
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; p && *p; p++) {
		switch (*p) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\t': fputs("\\t", f); break;
		default:
			if (*p < 0x20) fprintf(f, "\\u%04x", *p);
			else fputc(*p, f);
		}
	}
	fputc('"', f);
}

static void json_hex(FILE *f, const unsigned char *p, size_t n) {
	fputc('"', f);
	for (size_t i = 0; i < n; i++) fprintf(f, "%02x", p[i]);
	fputc('"', f);
}

/* ---- wrappers: declarations ---- */
#define WRAPPERS(X)                                                                                         \
	X(cuGetProcAddress, CUresult, (const char *s, void **pfn, int v, cuuint64_t fl))                    \
	X(cuGetProcAddress_v2, CUresult, (const char *s, void **pfn, int v, cuuint64_t fl, int *st))        \
	X(cuModuleLoadData, CUresult, (CUmodule * m, const void *img))                                      \
	X(cuModuleLoadDataEx, CUresult, (CUmodule * m, const void *img, unsigned n, int *o, void **ov))     \
	X(cuModuleLoadFatBinary, CUresult, (CUmodule * m, const void *img))                                 \
	X(cuModuleLoad, CUresult, (CUmodule * m, const char *path))                                         \
	X(cuModuleGetFunction, CUresult, (CUfunction * f, CUmodule m, const char *name))                   \
	X(cuLibraryLoadData, CUresult,                                                                      \
	  (CUlibrary * l, const void *img, void *jo, void **jv, unsigned nj, void *lo, void **lv, unsigned nl)) \
	X(cuLibraryLoadFromFile, CUresult,                                                                  \
	  (CUlibrary * l, const char *path, void *jo, void **jv, unsigned nj, void *lo, void **lv, unsigned nl)) \
	X(cuLibraryGetKernel, CUresult, (CUkernel * k, CUlibrary l, const char *name))                     \
	X(cuLibraryGetModule, CUresult, (CUmodule * m, CUlibrary l))                                        \
	X(cuKernelGetFunction, CUresult, (CUfunction * f, CUkernel k))                                      \
	X(cuFuncSetAttribute, CUresult, (CUfunction f, int attr, int value))                                \
	X(cuKernelSetAttribute, CUresult, (int attr, int value, CUkernel k, CUdevice d))                    \
	X(cuLaunchKernel, CUresult,                                                                         \
	  (CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,      \
	   unsigned smem, CUstream s, void **params, void **extra))                                        \
	X(cuLaunchKernel_ptsz, CUresult,                                                                    \
	  (CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,      \
	   unsigned smem, CUstream s, void **params, void **extra))                                        \
	X(cuLaunchCooperativeKernel, CUresult,                                                              \
	  (CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,      \
	   unsigned smem, CUstream s, void **params))                                                      \
	X(cuLaunchCooperativeKernel_ptsz, CUresult,                                                         \
	  (CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,      \
	   unsigned smem, CUstream s, void **params))                                                      \
	X(cuLaunchKernelEx, CUresult, (const CUlaunchConfig *c, CUfunction f, void **params, void **extra)) \
	X(cuLaunchKernelEx_ptsz, CUresult, (const CUlaunchConfig *c, CUfunction f, void **params, void **extra)) \
	X(cuTensorMapEncodeTiled, CUresult,                                                                 \
	  (CUtensorMap * m, int dt, cuuint32_t rank, void *addr, const cuuint64_t *dims,                    \
	   const cuuint64_t *strides, const cuuint32_t *box, const cuuint32_t *estr, int il, int sw, int l2, \
	   int oob))                                                                                        \
	X(cuTensorMapEncodeIm2col, CUresult,                                                                \
	  (CUtensorMap * m, int dt, cuuint32_t rank, void *addr, const cuuint64_t *dims,                    \
	   const cuuint64_t *strides, const int *lower, const int *upper, cuuint32_t chans,                 \
	   cuuint32_t pixels, const cuuint32_t *estr, int il, int sw, int l2, int oob))                     \
	X(cuTensorMapReplaceAddress, CUresult, (CUtensorMap * m, void *addr))                               \
	X(cuMemAlloc_v2, CUresult, (CUdeviceptr * p, size_t n))                                             \
	X(cuMemAllocPitch_v2, CUresult, (CUdeviceptr * p, size_t *pitch, size_t w, size_t h, unsigned e))   \
	X(cuMemAllocManaged, CUresult, (CUdeviceptr * p, size_t n, unsigned fl))                            \
	X(cuMemFree_v2, CUresult, (CUdeviceptr p))                                                          \
	X(cuMemAllocAsync, CUresult, (CUdeviceptr * p, size_t n, CUstream s))                               \
	X(cuMemAllocAsync_ptsz, CUresult, (CUdeviceptr * p, size_t n, CUstream s))                          \
	X(cuMemAllocFromPoolAsync, CUresult, (CUdeviceptr * p, size_t n, CUmemoryPool pool, CUstream s))    \
	X(cuMemAllocFromPoolAsync_ptsz, CUresult, (CUdeviceptr * p, size_t n, CUmemoryPool pool, CUstream s)) \
	X(cuMemFreeAsync, CUresult, (CUdeviceptr p, CUstream s))                                            \
	X(cuMemFreeAsync_ptsz, CUresult, (CUdeviceptr p, CUstream s))                                       \
	X(cuMemMap, CUresult, (CUdeviceptr p, size_t n, size_t off, CUmemGenericAllocationHandle h, unsigned long long fl)) \
	X(cuMemUnmap, CUresult, (CUdeviceptr p, size_t n))

#define DECLARE(name, ret, args)              \
	static ret(*real_##name) args;        \
	ret name args __attribute__((visibility("default")));
WRAPPERS(DECLARE)

typedef struct {
	const char *name;
	void *wrapper;
	void **real;
} hook_t;

#define ENTRY(name, ret, args) {#name, (void *)name, (void **)&real_##name},
static hook_t hooks[] = {WRAPPERS(ENTRY)};
#define NHOOKS (sizeof hooks / sizeof hooks[0])

static hook_t *hook_by_name(const char *s) {
	for (size_t i = 0; i < NHOOKS; i++)
		if (strcmp(hooks[i].name, s) == 0) return &hooks[i];
	return NULL;
}

/* ---- initialisation ---- */
static void resolve_dlsym(void) {
	if (real_dlsym) return;
	const char *vers[] = {"GLIBC_2.34", "GLIBC_2.2.5", "GLIBC_2.17", "GLIBC_2.0", NULL};
	for (int i = 0; vers[i] && !real_dlsym; i++) real_dlsym = dlvsym(RTLD_NEXT, "dlsym", vers[i]);
	if (!real_dlsym) {
		logf_("cannot find the real dlsym; capture disabled");
	}
}

static unsigned long long env_ull(const char *name, unsigned long long def) {
	const char *s = getenv(name);
	if (!s || !*s) return def;
	char *end;
	unsigned long long v = strtoull(s, &end, 0);
	if (*end) {
		logf_("%s=%s is not a number; using %llu", name, s, def);
		return def;
	}
	return v;
}

static void init(void) {
	resolve_dlsym();
	verbose = getenv("TCSIM_CAPTURE_VERBOSE") && atoi(getenv("TCSIM_CAPTURE_VERBOSE")) > 0;
	const char *lib = getenv("TCSIM_CAPTURE_LIBCUDA");
	if (!lib || !*lib) lib = "libcuda.so.1";
	libcuda = dlopen(lib, RTLD_NOW | RTLD_GLOBAL);
	if (!libcuda) {
		logf_("cannot load the CUDA driver %s: %s", lib, dlerror());
		return;
	}
	if (!real_dlsym) return;
	for (size_t i = 0; i < NHOOKS; i++) *hooks[i].real = real_dlsym(libcuda, hooks[i].name);
#define RESOLVE(var, sym) var = (__typeof__(var))real_dlsym(libcuda, sym)
	RESOLVE(p_cuCtxSynchronize, "cuCtxSynchronize");
	RESOLVE(p_cuMemcpyDtoH, "cuMemcpyDtoH_v2");
	RESOLVE(p_cuMemGetAddressRange, "cuMemGetAddressRange_v2");
	RESOLVE(p_cuFuncGetParamInfo, "cuFuncGetParamInfo");
	RESOLVE(p_cuKernelGetParamInfo, "cuKernelGetParamInfo");
	RESOLVE(p_cuFuncGetName, "cuFuncGetName");
	RESOLVE(p_cuKernelGetName, "cuKernelGetName");
	RESOLVE(p_cuFuncGetAttribute, "cuFuncGetAttribute");
	RESOLVE(p_cuCtxGetDevice, "cuCtxGetDevice");
	RESOLVE(p_cuDeviceGetName, "cuDeviceGetName");
	RESOLVE(p_cuDeviceGetAttribute, "cuDeviceGetAttribute");
	RESOLVE(p_cuDriverGetVersion, "cuDriverGetVersion");
	RESOLVE(p_cuStreamIsCapturing, "cuStreamIsCapturing");
	const char *dir = getenv("TCSIM_CAPTURE_DIR");
	if (dir && *dir) {
		snprintf(outdir, sizeof outdir, "%s", dir);
		if (mkdirs(outdir) == 0) enabled = 1;
		else logf_("cannot create %s: %s", outdir, strerror(errno));
	}
	const char *re = getenv("TCSIM_CAPTURE_KERNEL");
	if (re && *re) {
		int rc = regcomp(&kernel_re, re, REG_EXTENDED | REG_NOSUB);
		if (rc != 0) {
			char msg[256];
			regerror(rc, &kernel_re, msg, sizeof msg);
			logf_("TCSIM_CAPTURE_KERNEL=%s: %s; nothing will be captured", re, msg);
			enabled = 0;
		} else {
			have_re = 1;
		}
	}
	const char *nl = getenv("TCSIM_CAPTURE_LAUNCH");
	if (nl && *nl) want_launch = (long)env_ull("TCSIM_CAPTURE_LAUNCH", 0);
	max_captures = (long)env_ull("TCSIM_CAPTURE_MAX", 8);
	max_buffer = env_ull("TCSIM_CAPTURE_MAX_BUFFER", max_buffer);
	max_total = env_ull("TCSIM_CAPTURE_MAX_TOTAL", max_total);
	if (verbose) logf_("interposer loaded (pid %d), writing to %s", (int)getpid(), enabled ? outdir : "(nowhere)");
}

static void ensure_init(void) { pthread_once(&once, init); }

/* No constructor: the driver is loaded on the first cu* call, so that
 * processes that never use CUDA (compilers a program spawns) pay nothing. */

/* ---- dlsym and cuGetProcAddress ---- */
void *dlsym(void *handle, const char *symbol) __attribute__((visibility("default")));
void *dlsym(void *handle, const char *symbol) {
	resolve_dlsym();
	if (!real_dlsym) return NULL;
	const char *volatile sym = symbol; /* dlfcn.h declares symbol nonnull */
	if (sym && symbol[0] == 'c' && symbol[1] == 'u' && handle != RTLD_NEXT) {
		hook_t *h = hook_by_name(symbol);
		if (h) {
			void *r = real_dlsym(handle, symbol);
			if (r) {
				ensure_init();
				if (!*h->real) *h->real = r;
				if (verbose) logf_("dlsym(%s) -> wrapper", symbol);
				return h->wrapper;
			}
			return r;
		}
	}
	return real_dlsym(handle, symbol);
}

/* wrap_proc decides what cuGetProcAddress hands back for symbol s whose
 * real entry point is *pfn. */
static void wrap_proc(const char *s, void **pfn, int version, cuuint64_t flags) {
	if (!pfn || !*pfn) return;
	/* Match the entry point to an exported symbol we wrap. */
	for (size_t i = 0; i < NHOOKS; i++) {
		if (*hooks[i].real && *hooks[i].real == *pfn) {
			if (verbose) logf_("cuGetProcAddress(%s, %d) -> wrapper of %s", s, version, hooks[i].name);
			*pfn = hooks[i].wrapper;
			return;
		}
	}
	/* Not an exported address: wrap by name when the name is ours. The
	 * wrapper then calls the exported entry point of that name, which
	 * has the ABI of the newest version the program can ask for. */
	char name[256];
	int ptds = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0;
	const char *suffixes[] = {"", "_v2"};
	for (int k = 0; k < 2; k++) {
		snprintf(name, sizeof name, "%s%s%s", s, suffixes[k], ptds ? "_ptsz" : "");
		hook_t *h = hook_by_name(name);
		if (!h) continue;
		if (*pfn == h->wrapper) return;
		if (!*h->real) *h->real = *pfn;
		if (verbose) logf_("cuGetProcAddress(%s, %d) -> wrapper of %s (by name; the driver's entry point %p, the exported one %p)",
				   s, version, name, *pfn, *h->real);
		*pfn = h->wrapper;
		return;
	}
}

CUresult cuGetProcAddress(const char *s, void **pfn, int v, cuuint64_t fl) {
	ensure_init();
	if (!real_cuGetProcAddress) return 500; /* CUDA_ERROR_NOT_FOUND */
	CUresult r = real_cuGetProcAddress(s, pfn, v, fl);
	if (r == CUDA_SUCCESS && s) wrap_proc(s, pfn, v, fl);
	return r;
}

CUresult cuGetProcAddress_v2(const char *s, void **pfn, int v, cuuint64_t fl, int *st) {
	ensure_init();
	if (!real_cuGetProcAddress_v2) return 500;
	CUresult r = real_cuGetProcAddress_v2(s, pfn, v, fl, st);
	if (r == CUDA_SUCCESS && s) wrap_proc(s, pfn, v, fl);
	return r;
}

/* ---- images ---- */
static size_t elf_size(const unsigned char *p) {
	/* 64-bit little-endian ELF: the section header table ends the file. */
	uint64_t shoff, phoff;
	uint16_t shentsize, shnum, phentsize, phnum;
	memcpy(&phoff, p + 0x20, 8);
	memcpy(&shoff, p + 0x28, 8);
	memcpy(&phentsize, p + 0x36, 2);
	memcpy(&phnum, p + 0x38, 2);
	memcpy(&shentsize, p + 0x3a, 2);
	memcpy(&shnum, p + 0x3c, 2);
	size_t end = shoff + (size_t)shentsize * shnum;
	size_t pend = phoff + (size_t)phentsize * phnum;
	if (pend > end) end = pend;
	/* Section contents may follow the headers. */
	for (uint16_t i = 0; i < shnum; i++) {
		const unsigned char *sh = p + shoff + (size_t)i * shentsize;
		uint32_t type;
		uint64_t off, size;
		memcpy(&type, sh + 4, 4);
		memcpy(&off, sh + 0x18, 8);
		memcpy(&size, sh + 0x20, 8);
		if (type != 8 /* SHT_NOBITS */ && off + size > end) end = off + size;
	}
	return end;
}

/* image_of works out an image's kind and size; img may be a fatbin
 * wrapper, which is followed to its fatbin. */
static const void *image_of(const void *img, size_t *size, const char **kind) {
	const unsigned char *p = img;
	uint32_t magic;
	memcpy(&magic, p, 4);
	if (magic == 0x466243b1) { /* __fatBinC_Wrapper_t: magic, version, data, ... */
		const void *data;
		memcpy(&data, p + 8, sizeof data);
		p = data;
		memcpy(&magic, p, 4);
	}
	if (magic == 0xba55ed50) {
		uint16_t hs;
		uint64_t fs;
		memcpy(&hs, p + 6, 2);
		memcpy(&fs, p + 8, 8);
		*size = hs + fs;
		*kind = "fatbin";
		return p;
	}
	if (p[0] == 0x7f && p[1] == 'E' && p[2] == 'L' && p[3] == 'F') {
		*size = elf_size(p);
		*kind = "elf";
		return p;
	}
	*size = strlen((const char *)p) + 1;
	*kind = "ptx";
	return p;
}

static image_t *new_image(const void *img, const char *path) {
	image_t *im = calloc(1, sizeof *im);
	if (!im) return NULL;
	im->ptr = image_of(img, &im->size, &im->kind);
	if (im->size <= (64u << 20)) {
		im->copy = malloc(im->size);
		if (im->copy) memcpy(im->copy, im->ptr, im->size);
	}
	if (path) snprintf(im->path, sizeof im->path, "%s", path);
	return im;
}

static image_t *file_image(const char *path) {
	FILE *f = fopen(path, "rb");
	if (!f) return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	image_t *im = NULL;
	unsigned char *buf = n > 0 ? malloc((size_t)n + 1) : NULL;
	if (buf && fread(buf, 1, (size_t)n, f) == (size_t)n) {
		buf[n] = 0;
		im = calloc(1, sizeof *im);
		if (im) {
			const void *p = image_of(buf, &im->size, &im->kind);
			if (p == buf && im->size <= (size_t)n + 1) {
				im->copy = buf;
				im->ptr = buf;
				buf = NULL;
			} else {
				im->size = (size_t)n;
				im->copy = buf;
				im->ptr = buf;
				buf = NULL;
			}
			snprintf(im->path, sizeof im->path, "%s", path);
		}
	}
	free(buf);
	fclose(f);
	return im;
}

static void add_module(void *handle, image_t *img) {
	if (!handle || !img) return;
	if (verbose) logf_("module %p loaded: %s image of %zu bytes", handle, img->kind, img->size);
	pthread_mutex_lock(&mu);
	GROW(mods, nmods, capmods);
	mods[nmods++] = (modrec_t){handle, img};
	pthread_mutex_unlock(&mu);
}

static image_t *module_image(void *handle) {
	for (size_t i = nmods; i-- > 0;)
		if (mods[i].handle == handle) return mods[i].img;
	return NULL;
}

static funcrec_t *find_func(void *handle) {
	for (size_t i = nfuncs; i-- > 0;)
		if (funcs[i].handle == handle) return &funcs[i];
	return NULL;
}

static void add_func(void *handle, void *owner, const char *name, int is_kernel) {
	if (!handle) return;
	pthread_mutex_lock(&mu);
	funcrec_t *f = find_func(handle);
	if (!f) {
		GROW(funcs, nfuncs, capfuncs);
		f = &funcs[nfuncs++];
		memset(f, 0, sizeof *f);
		f->handle = handle;
	}
	f->owner = owner;
	free(f->name);
	f->name = name ? strdup(name) : NULL;
	f->is_kernel = is_kernel;
	pthread_mutex_unlock(&mu);
}

CUresult cuModuleLoadData(CUmodule *m, const void *img) {
	ensure_init();
	CUresult r = real_cuModuleLoadData(m, img);
	if (r == CUDA_SUCCESS && img) add_module(*m, new_image(img, NULL));
	return r;
}

CUresult cuModuleLoadDataEx(CUmodule *m, const void *img, unsigned n, int *o, void **ov) {
	ensure_init();
	CUresult r = real_cuModuleLoadDataEx(m, img, n, o, ov);
	if (r == CUDA_SUCCESS && img) add_module(*m, new_image(img, NULL));
	return r;
}

CUresult cuModuleLoadFatBinary(CUmodule *m, const void *img) {
	ensure_init();
	CUresult r = real_cuModuleLoadFatBinary(m, img);
	if (r == CUDA_SUCCESS && img) add_module(*m, new_image(img, NULL));
	return r;
}

CUresult cuModuleLoad(CUmodule *m, const char *path) {
	ensure_init();
	CUresult r = real_cuModuleLoad(m, path);
	if (r == CUDA_SUCCESS && path) add_module(*m, file_image(path));
	return r;
}

CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name) {
	ensure_init();
	CUresult r = real_cuModuleGetFunction(f, m, name);
	if (r == CUDA_SUCCESS) add_func(*f, m, name, 0);
	return r;
}

CUresult cuLibraryLoadData(CUlibrary *l, const void *img, void *jo, void **jv, unsigned nj, void *lo, void **lv, unsigned nl) {
	ensure_init();
	CUresult r = real_cuLibraryLoadData(l, img, jo, jv, nj, lo, lv, nl);
	if (r == CUDA_SUCCESS && img) add_module(*l, new_image(img, NULL));
	return r;
}

CUresult cuLibraryLoadFromFile(CUlibrary *l, const char *path, void *jo, void **jv, unsigned nj, void *lo, void **lv, unsigned nl) {
	ensure_init();
	CUresult r = real_cuLibraryLoadFromFile(l, path, jo, jv, nj, lo, lv, nl);
	if (r == CUDA_SUCCESS && path) add_module(*l, file_image(path));
	return r;
}

CUresult cuLibraryGetKernel(CUkernel *k, CUlibrary l, const char *name) {
	ensure_init();
	CUresult r = real_cuLibraryGetKernel(k, l, name);
	if (r == CUDA_SUCCESS) add_func(*k, l, name, 1);
	return r;
}

CUresult cuLibraryGetModule(CUmodule *m, CUlibrary l) {
	ensure_init();
	CUresult r = real_cuLibraryGetModule(m, l);
	if (r == CUDA_SUCCESS) {
		pthread_mutex_lock(&mu);
		image_t *img = module_image(l);
		pthread_mutex_unlock(&mu);
		if (img) add_module(*m, img);
	}
	return r;
}

CUresult cuKernelGetFunction(CUfunction *f, CUkernel k) {
	ensure_init();
	CUresult r = real_cuKernelGetFunction(f, k);
	if (r == CUDA_SUCCESS) {
		pthread_mutex_lock(&mu);
		funcrec_t *kr = find_func(k);
		void *owner = kr ? kr->owner : NULL;
		char *name = kr && kr->name ? strdup(kr->name) : NULL;
		pthread_mutex_unlock(&mu);
		add_func(*f, owner, name, 0);
		free(name);
	}
	return r;
}

static void note_smem_attr(void *handle, int attr, int value) {
	if (attr != CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) return;
	pthread_mutex_lock(&mu);
	funcrec_t *f = find_func(handle);
	if (f) f->max_dyn_smem = value;
	pthread_mutex_unlock(&mu);
}

CUresult cuFuncSetAttribute(CUfunction f, int attr, int value) {
	ensure_init();
	CUresult r = real_cuFuncSetAttribute(f, attr, value);
	if (r == CUDA_SUCCESS) note_smem_attr(f, attr, value);
	return r;
}

CUresult cuKernelSetAttribute(int attr, int value, CUkernel k, CUdevice d) {
	ensure_init();
	CUresult r = real_cuKernelSetAttribute(attr, value, k, d);
	if (r == CUDA_SUCCESS) note_smem_attr(k, attr, value);
	return r;
}

/* ---- allocations ---- */
static void add_alloc(CUdeviceptr p, size_t n, const char *how) {
	pthread_mutex_lock(&mu);
	GROW(allocs, nallocs, capallocs);
	allocs[nallocs++] = (alloc_t){p, n, how};
	pthread_mutex_unlock(&mu);
}

static void del_alloc(CUdeviceptr p) {
	pthread_mutex_lock(&mu);
	for (size_t i = nallocs; i-- > 0;) {
		if (allocs[i].base == p) {
			allocs[i] = allocs[--nallocs];
			break;
		}
	}
	pthread_mutex_unlock(&mu);
}

CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n) {
	ensure_init();
	CUresult r = real_cuMemAlloc_v2(p, n);
	if (r == CUDA_SUCCESS) add_alloc(*p, n, "cuMemAlloc");
	return r;
}

CUresult cuMemAllocPitch_v2(CUdeviceptr *p, size_t *pitch, size_t w, size_t h, unsigned e) {
	ensure_init();
	CUresult r = real_cuMemAllocPitch_v2(p, pitch, w, h, e);
	if (r == CUDA_SUCCESS) add_alloc(*p, *pitch * h, "cuMemAllocPitch");
	return r;
}

CUresult cuMemAllocManaged(CUdeviceptr *p, size_t n, unsigned fl) {
	ensure_init();
	CUresult r = real_cuMemAllocManaged(p, n, fl);
	if (r == CUDA_SUCCESS) add_alloc(*p, n, "cuMemAllocManaged");
	return r;
}

CUresult cuMemFree_v2(CUdeviceptr p) {
	ensure_init();
	del_alloc(p);
	return real_cuMemFree_v2(p);
}

CUresult cuMemAllocAsync(CUdeviceptr *p, size_t n, CUstream s) {
	ensure_init();
	CUresult r = real_cuMemAllocAsync(p, n, s);
	if (r == CUDA_SUCCESS) add_alloc(*p, n, "cuMemAllocAsync");
	return r;
}

CUresult cuMemAllocAsync_ptsz(CUdeviceptr *p, size_t n, CUstream s) {
	ensure_init();
	CUresult r = real_cuMemAllocAsync_ptsz(p, n, s);
	if (r == CUDA_SUCCESS) add_alloc(*p, n, "cuMemAllocAsync");
	return r;
}

CUresult cuMemAllocFromPoolAsync(CUdeviceptr *p, size_t n, CUmemoryPool pool, CUstream s) {
	ensure_init();
	CUresult r = real_cuMemAllocFromPoolAsync(p, n, pool, s);
	if (r == CUDA_SUCCESS) add_alloc(*p, n, "cuMemAllocFromPoolAsync");
	return r;
}

CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *p, size_t n, CUmemoryPool pool, CUstream s) {
	ensure_init();
	CUresult r = real_cuMemAllocFromPoolAsync_ptsz(p, n, pool, s);
	if (r == CUDA_SUCCESS) add_alloc(*p, n, "cuMemAllocFromPoolAsync");
	return r;
}

CUresult cuMemFreeAsync(CUdeviceptr p, CUstream s) {
	ensure_init();
	del_alloc(p);
	return real_cuMemFreeAsync(p, s);
}

CUresult cuMemFreeAsync_ptsz(CUdeviceptr p, CUstream s) {
	ensure_init();
	del_alloc(p);
	return real_cuMemFreeAsync_ptsz(p, s);
}

CUresult cuMemMap(CUdeviceptr p, size_t n, size_t off, CUmemGenericAllocationHandle h, unsigned long long fl) {
	ensure_init();
	CUresult r = real_cuMemMap(p, n, off, h, fl);
	if (r == CUDA_SUCCESS) add_alloc(p, n, "cuMemMap");
	return r;
}

CUresult cuMemUnmap(CUdeviceptr p, size_t n) {
	ensure_init();
	del_alloc(p);
	return real_cuMemUnmap(p, n);
}

/* find_alloc returns the allocation holding address v, from the tracked
 * allocations or else from the driver. */
static int find_alloc(CUdeviceptr v, alloc_t *out) {
	for (size_t i = 0; i < nallocs; i++) {
		if (v >= allocs[i].base && v - allocs[i].base < allocs[i].size) {
			*out = allocs[i];
			return 1;
		}
	}
	if (p_cuMemGetAddressRange) {
		CUdeviceptr base = 0;
		size_t size = 0;
		if (p_cuMemGetAddressRange(&base, &size, v) == CUDA_SUCCESS && size > 0) {
			*out = (alloc_t){base, size, "cuMemGetAddressRange"};
			return 1;
		}
	}
	return 0;
}

/* ---- tensor maps ---- */
static void add_tmap(const CUtensorMap *m, CUdeviceptr addr, unsigned long long extent, char *json) {
	pthread_mutex_lock(&mu);
	GROW(tmaps, ntmaps, captmaps);
	tmaprec_t *t = &tmaps[ntmaps++];
	memcpy(t->bytes, m, 128);
	t->addr = addr;
	t->extent = extent;
	t->json = json;
	pthread_mutex_unlock(&mu);
	if (enabled) {
		char path[4200];
		snprintf(path, sizeof path, "%s/tensormaps.jsonl", outdir);
		pthread_mutex_lock(&mu);
		FILE *f = fopen(path, "a");
		if (f) {
			fputs("{\"map\": ", f);
			json_hex(f, (const unsigned char *)m, 128);
			fprintf(f, ", \"pid\": %d, \"encode\": %s}\n", (int)getpid(), json);
			fclose(f);
		}
		pthread_mutex_unlock(&mu);
	}
}

static const int dtype_size[] = {1, 2, 4, 4, 8, 8, 2, 4, 8, 2, 4, 4, 4, 1, 1, 1};

static char *encode_json(const char *kind, int dt, cuuint32_t rank, void *addr, const cuuint64_t *dims,
			 const cuuint64_t *strides, const cuuint32_t *box, const cuuint32_t *estr, int il, int sw,
			 int l2, int oob, unsigned long long *extent) {
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f) return strdup("{}");
	fprintf(f, "{\"kind\": \"%s\", \"dtype\": %d, \"rank\": %u, \"addr\": \"0x%llx\", \"dims\": [", kind, dt, rank,
		(unsigned long long)(uintptr_t)addr);
	unsigned long long ext = (dt >= 0 && dt < 16) ? (unsigned long long)dtype_size[dt] : 1;
	for (cuuint32_t i = 0; i < rank && i < 5; i++) fprintf(f, "%s%llu", i ? ", " : "", (unsigned long long)dims[i]);
	fputs("], \"strides\": [", f);
	if (rank >= 1 && rank <= 5) ext *= dims[0];
	for (cuuint32_t i = 0; i + 1 < rank && i < 4; i++) {
		fprintf(f, "%s%llu", i ? ", " : "", (unsigned long long)strides[i]);
		if (dims[i + 1] > 0) ext += (dims[i + 1] - 1) * strides[i];
	}
	fputs("]", f);
	if (box) {
		fputs(", \"box\": [", f);
		for (cuuint32_t i = 0; i < rank && i < 5; i++) fprintf(f, "%s%u", i ? ", " : "", box[i]);
		fputs("]", f);
	}
	fputs(", \"estrides\": [", f);
	for (cuuint32_t i = 0; i < rank && i < 5; i++) fprintf(f, "%s%u", i ? ", " : "", estr ? estr[i] : 1);
	fprintf(f, "], \"interleave\": %d, \"swizzle\": %d, \"l2\": %d, \"oob\": %d}", il, sw, l2, oob);
	fclose(f);
	*extent = ext;
	return buf;
}

CUresult cuTensorMapEncodeTiled(CUtensorMap *m, int dt, cuuint32_t rank, void *addr, const cuuint64_t *dims,
				const cuuint64_t *strides, const cuuint32_t *box, const cuuint32_t *estr, int il,
				int sw, int l2, int oob) {
	ensure_init();
	CUresult r = real_cuTensorMapEncodeTiled(m, dt, rank, addr, dims, strides, box, estr, il, sw, l2, oob);
	if (r == CUDA_SUCCESS && rank >= 1 && rank <= 5) {
		unsigned long long ext;
		char *j = encode_json("tiled", dt, rank, addr, dims, strides, box, estr, il, sw, l2, oob, &ext);
		add_tmap(m, (CUdeviceptr)(uintptr_t)addr, ext, j);
	}
	return r;
}

CUresult cuTensorMapEncodeIm2col(CUtensorMap *m, int dt, cuuint32_t rank, void *addr, const cuuint64_t *dims,
				 const cuuint64_t *strides, const int *lower, const int *upper, cuuint32_t chans,
				 cuuint32_t pixels, const cuuint32_t *estr, int il, int sw, int l2, int oob) {
	ensure_init();
	CUresult r = real_cuTensorMapEncodeIm2col(m, dt, rank, addr, dims, strides, lower, upper, chans, pixels,
						  estr, il, sw, l2, oob);
	if (r == CUDA_SUCCESS && rank >= 3 && rank <= 5) {
		unsigned long long ext;
		char *j = encode_json("im2col", dt, rank, addr, dims, strides, NULL, estr, il, sw, l2, oob, &ext);
		/* append the im2col fields */
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		if (f) {
			j[strlen(j) - 1] = 0; /* drop '}' */
			fprintf(f, "%s, \"lower\": [", j);
			for (cuuint32_t i = 0; i + 2 < rank; i++) fprintf(f, "%s%d", i ? ", " : "", lower[i]);
			fputs("], \"upper\": [", f);
			for (cuuint32_t i = 0; i + 2 < rank; i++) fprintf(f, "%s%d", i ? ", " : "", upper[i]);
			fprintf(f, "], \"channels\": %u, \"pixels\": %u}", chans, pixels);
			fclose(f);
			free(j);
			j = buf;
		}
		add_tmap(m, (CUdeviceptr)(uintptr_t)addr, ext, j);
	}
	return r;
}

CUresult cuTensorMapReplaceAddress(CUtensorMap *m, void *addr) {
	ensure_init();
	unsigned char before[128];
	memcpy(before, m, 128);
	CUresult r = real_cuTensorMapReplaceAddress(m, addr);
	if (r == CUDA_SUCCESS) {
		pthread_mutex_lock(&mu);
		tmaprec_t *old = NULL;
		for (size_t i = ntmaps; i-- > 0;)
			if (memcmp(tmaps[i].bytes, before, 128) == 0) {
				old = &tmaps[i];
				break;
			}
		unsigned long long ext = old ? old->extent : 0;
		char *json = NULL;
		if (old) {
			size_t n = strlen(old->json) + 64;
			json = malloc(n);
			if (json) snprintf(json, n, "%.*s, \"replaced\": true}", (int)strlen(old->json) - 1, old->json);
		}
		pthread_mutex_unlock(&mu);
		if (json) add_tmap(m, (CUdeviceptr)(uintptr_t)addr, ext, json);
	}
	return r;
}

/* ---- launches ---- */
typedef struct {
	const char *api;
	CUfunction f;
	unsigned grid[3], block[3], cluster[3];
	unsigned smem;
	CUstream stream;
	int cooperative;
	void **params;
	void **extra;
} launch_t;

typedef struct {
	CUdeviceptr base;
	size_t size;
	const char *how;
	unsigned char *before;
	int left_out;
	char why[160];
	char refs[512]; /* JSON list of where it was referred from */
	size_t nrefs_len;
} buf_t;

static const char *func_name(CUfunction f, funcrec_t **rec) {
	funcrec_t *r = find_func(f);
	*rec = r;
	if (r && r->name) return r->name;
	const char *n = NULL;
	if (p_cuFuncGetName && p_cuFuncGetName(&n, f) == CUDA_SUCCESS && n) return n;
	if (p_cuKernelGetName && p_cuKernelGetName(&n, (CUkernel)f) == CUDA_SUCCESS && n) return n;
	return "?";
}

static int selected(const char *name) {
	if (!enabled) return 0;
	if (have_re && regexec(&kernel_re, name, 0, NULL, 0) != 0) return 0;
	long idx = nmatched++;
	if (want_launch >= 0 && idx != want_launch) return 0;
	if (ncaptured >= max_captures) {
		static int warned;
		if (!warned) logf_("captured %ld launches (TCSIM_CAPTURE_MAX); later launches are not captured", max_captures);
		warned = 1;
		return 0;
	}
	return 1;
}

/* param_layout fills offs/sizes; it returns the count, or -1. */
static int param_layout(CUfunction f, int is_kernel, size_t *offs, size_t *sizes, int max) {
	int n = 0;
	for (; n < max; n++) {
		CUresult r;
		if (is_kernel && p_cuKernelGetParamInfo)
			r = p_cuKernelGetParamInfo((CUkernel)f, (size_t)n, &offs[n], &sizes[n]);
		else if (p_cuFuncGetParamInfo)
			r = p_cuFuncGetParamInfo(f, (size_t)n, &offs[n], &sizes[n]);
		else
			return -1;
		if (r != CUDA_SUCCESS) {
			if (n == 0 && !is_kernel && p_cuKernelGetParamInfo &&
			    p_cuKernelGetParamInfo((CUkernel)f, 0, &offs[0], &sizes[0]) == CUDA_SUCCESS) {
				is_kernel = 1;
				n = -1; /* restart as a CUkernel */
				continue;
			}
			break;
		}
	}
	return n;
}

static void write_process(void) {
	if (wrote_process) return;
	wrote_process = 1;
	char path[4200];
	snprintf(path, sizeof path, "%s/process-%d.json", outdir, (int)getpid());
	FILE *f = fopen(path, "w");
	if (!f) return;
	char exe[4096] = "";
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n > 0) exe[n] = 0;
	fprintf(f, "{\n  \"pid\": %d,\n  \"exe\": ", (int)getpid());
	json_str(f, exe);
	fputs(",\n  \"cmdline\": [", f);
	FILE *c = fopen("/proc/self/cmdline", "rb");
	if (c) {
		char arg[8192];
		int first = 1;
		size_t k = 0;
		int ch;
		while ((ch = fgetc(c)) != EOF) {
			if (ch == 0) {
				arg[k] = 0;
				if (!first) fputs(", ", f);
				json_str(f, arg);
				first = 0;
				k = 0;
			} else if (k + 1 < sizeof arg) {
				arg[k++] = (char)ch;
			}
		}
		fclose(c);
	}
	fputs("]", f);
	CUdevice dev = 0;
	char name[256] = "";
	int maj = 0, min = 0, drv = 0;
	if (p_cuCtxGetDevice && p_cuCtxGetDevice(&dev) == CUDA_SUCCESS) {
		if (p_cuDeviceGetName) p_cuDeviceGetName(name, sizeof name, dev);
		if (p_cuDeviceGetAttribute) {
			p_cuDeviceGetAttribute(&maj, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
			p_cuDeviceGetAttribute(&min, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
		}
	}
	if (p_cuDriverGetVersion) p_cuDriverGetVersion(&drv);
	fputs(",\n  \"device\": ", f);
	json_str(f, name);
	fprintf(f, ",\n  \"cc\": \"%d.%d\",\n  \"driver_cuda_version\": %d\n}\n", maj, min, drv);
	fclose(f);
}

static void write_image(image_t *img) {
	if (!img || img->file[0]) return;
	const unsigned char *p = img->copy ? img->copy : img->ptr;
	uint64_t h = fnv64(p, img->size);
	snprintf(img->file, sizeof img->file, "images/%016llx.%s", (unsigned long long)h,
		 strcmp(img->kind, "ptx") == 0 ? "ptx" : strcmp(img->kind, "elf") == 0 ? "cubin" : "fatbin");
	char path[4300];
	snprintf(path, sizeof path, "%s/images", outdir);
	mkdirs(path);
	snprintf(path, sizeof path, "%s/%s", outdir, img->file);
	struct stat st;
	if (stat(path, &st) == 0) return;
	size_t n = img->size;
	if (strcmp(img->kind, "ptx") == 0 && n > 0) n--; /* no trailing NUL */
	write_file(path, p, n);
}

static int ref_add(buf_t *b, const char *where, unsigned long long off, CUdeviceptr v) {
	size_t room = sizeof b->refs - b->nrefs_len;
	if (room < 80) return 0;
	int k = snprintf(b->refs + b->nrefs_len, room, "%s{\"from\": \"%s\", \"offset\": %llu, \"value\": \"0x%llx\"}",
			 b->nrefs_len ? ", " : "", where, off, (unsigned long long)v);
	if (k > 0 && (size_t)k < room) b->nrefs_len += (size_t)k;
	return 1;
}

/* add_buf notes that address v (referred from where/off) reaches an
 * allocation. */
static void add_buf(buf_t **bufs, size_t *nb, size_t *cb, CUdeviceptr v, const char *where, unsigned long long off) {
	if (v < 0x10000) return;
	for (size_t i = 0; i < *nb; i++) {
		if (v >= (*bufs)[i].base && v - (*bufs)[i].base < (*bufs)[i].size) {
			ref_add(&(*bufs)[i], where, off, v);
			return;
		}
	}
	alloc_t a;
	if (!find_alloc(v, &a)) return;
	GROW(*bufs, *nb, *cb);
	buf_t *b = &(*bufs)[(*nb)++];
	memset(b, 0, sizeof *b);
	b->base = a.base;
	b->size = a.size;
	b->how = a.how;
	ref_add(b, where, off, v);
}

static void add_note(char *notes, size_t *nl, size_t cap, const char *fmt, ...) {
	char tmp[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	if (*nl + 2 * strlen(tmp) + 8 >= cap) return;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f) return;
	if (*nl) fputs(", ", f);
	json_str(f, tmp);
	fclose(f);
	if (*nl + len < cap) {
		memcpy(notes + *nl, buf, len + 1);
		*nl += len;
	}
	free(buf);
}

static CUresult capture_launch(launch_t *L, CUresult (*go)(launch_t *)) {
	funcrec_t *rec;
	pthread_mutex_lock(&mu);
	long seq = nlaunches++;
	const char *nm = func_name(L->f, &rec);
	char *name = strdup(nm);
	int sel = selected(name);
	long myidx = sel ? ncaptured++ : -1;
	pthread_mutex_unlock(&mu);
	if (verbose) logf_("%s %s grid %u,%u,%u block %u,%u,%u smem %u%s", L->api, name, L->grid[0], L->grid[1],
			   L->grid[2], L->block[0], L->block[1], L->block[2], L->smem, sel ? " (captured)" : "");
	/* A launch into a stream that is being captured into a CUDA graph does
	 * not run now: there is nothing to copy before or after it. */
	int capturing = 0;
	if (sel && p_cuStreamIsCapturing && p_cuStreamIsCapturing(L->stream, &capturing) == CUDA_SUCCESS && capturing) {
		logf_("launch of %s goes into a CUDA graph being captured (stream %p); not captured (run the program without CUDA graphs, e.g. torch.compile without mode=\"reduce-overhead\")",
		      name, (void *)L->stream);
		pthread_mutex_lock(&mu);
		ncaptured--;
		pthread_mutex_unlock(&mu);
		sel = 0;
	}
	if (!sel) {
		free(name);
		char *note = pending_note;
		pending_note = NULL;
		free(note);
		return go(L);
	}
	pthread_mutex_lock(&mu);
	write_process();
	pthread_mutex_unlock(&mu);

	char dir[4300];
	snprintf(dir, sizeof dir, "%s/launch-%04ld-p%d", outdir, myidx, (int)getpid());
	mkdirs(dir);
	char notes[4096] = "";
	size_t nl = 0;
#define NOTE(...) add_note(notes, &nl, sizeof notes, __VA_ARGS__)

	/* parameters */
	enum { MAXP = 4096 };
	size_t *offs = calloc(MAXP, sizeof *offs), *sizes = calloc(MAXP, sizeof *sizes);
	if (!offs || !sizes) abort();
	int is_kernel = rec ? rec->is_kernel : 0;
	pthread_mutex_lock(&mu);
	int np = param_layout(L->f, is_kernel, offs, sizes, MAXP);
	size_t psize = 0;
	unsigned char *pblob = NULL;
	if (np >= 0) {
		for (int i = 0; i < np; i++)
			if (offs[i] + sizes[i] > psize) psize = offs[i] + sizes[i];
	}
	if (L->extra) {
		void *bufp = NULL;
		size_t bsize = 0;
		for (void **e = L->extra; *e; e += 2) {
			if (*e == (void *)1) bufp = e[1];
			else if (*e == (void *)2) bsize = *(size_t *)e[1];
		}
		if (bufp && bsize) {
			if (bsize > psize) psize = bsize;
			pblob = calloc(1, psize ? psize : 1);
			if (pblob) memcpy(pblob, bufp, bsize);
		}
	} else if (np >= 0 && L->params) {
		pblob = calloc(1, psize ? psize : 1);
		if (pblob)
			for (int i = 0; i < np; i++) memcpy(pblob + offs[i], L->params[i], sizes[i]);
	}
	if (np < 0) NOTE("the driver has no cuFuncGetParamInfo (CUDA 12.4+); parameter layout unknown");

	/* reachable memory: 8-byte aligned words of the parameters, and the
	 * addresses of the tensor maps among them */
	buf_t *bufs = NULL;
	size_t nb = 0, cb = 0;
	char tmjson[16384] = "";
	size_t tml = 0;
	if (pblob) {
		for (size_t off = 0; off + 8 <= psize; off += 8) {
			CUdeviceptr v;
			memcpy(&v, pblob + off, 8);
			add_buf(&bufs, &nb, &cb, v, "param", off);
		}
		/* Parameter offsets are relative to the parameter bank's base, so
		 * a 64-byte aligned map may sit at any 16-byte offset here. */
		for (size_t off = 0; off + 128 <= psize; off += 16) {
			for (size_t t = ntmaps; t-- > 0;) {
				if (memcmp(tmaps[t].bytes, pblob + off, 128) != 0) continue;
				add_buf(&bufs, &nb, &cb, tmaps[t].addr, "tensormap", off);
				if (tmaps[t].extent > 0) add_buf(&bufs, &nb, &cb, tmaps[t].addr + tmaps[t].extent - 1, "tensormap-end", off);
				if (tml < sizeof tmjson - 2048)
					tml += (size_t)snprintf(tmjson + tml, sizeof tmjson - tml, "%s{\"offset\": %zu, \"encode\": %s}",
								tml ? ", " : "", off, tmaps[t].json);
				break;
			}
		}
	}
	pthread_mutex_unlock(&mu);

	/* copy before */
	CUresult sr = p_cuCtxSynchronize ? p_cuCtxSynchronize() : CUDA_SUCCESS;
	if (sr != CUDA_SUCCESS) NOTE("cuCtxSynchronize before the launch failed with %d", sr);
	unsigned long long total = 0;
	for (size_t i = 0; i < nb; i++) {
		buf_t *b = &bufs[i];
		if (b->size > max_buffer) {
			b->left_out = 1;
			snprintf(b->why, sizeof b->why, "allocation of %zu bytes is larger than TCSIM_CAPTURE_MAX_BUFFER (%llu)", b->size, max_buffer);
			continue;
		}
		if (total + 2ULL * b->size > max_total) {
			b->left_out = 1;
			snprintf(b->why, sizeof b->why, "copying it would pass TCSIM_CAPTURE_MAX_TOTAL (%llu bytes per launch)", max_total);
			continue;
		}
		b->before = malloc(b->size ? b->size : 1);
		if (!b->before) {
			b->left_out = 1;
			snprintf(b->why, sizeof b->why, "out of host memory for %zu bytes", b->size);
			continue;
		}
		CUresult r = p_cuMemcpyDtoH ? p_cuMemcpyDtoH(b->before, b->base, b->size) : 1;
		if (r != CUDA_SUCCESS) {
			b->left_out = 1;
			snprintf(b->why, sizeof b->why, "cuMemcpyDtoH failed with %d (not device memory?)", r);
			free(b->before);
			b->before = NULL;
			continue;
		}
		total += 2ULL * b->size;
		char path[4400];
		snprintf(path, sizeof path, "%s/mem-%zu-before.bin", dir, i);
		write_file(path, b->before, b->size);
	}

	/* launch */
	CUresult lr = go(L);
	CUresult ar = p_cuCtxSynchronize ? p_cuCtxSynchronize() : CUDA_SUCCESS;
	int changed_any = 0;
	for (size_t i = 0; i < nb; i++) {
		buf_t *b = &bufs[i];
		if (b->left_out || !b->before) continue;
		unsigned char *after = malloc(b->size ? b->size : 1);
		if (!after) continue;
		if (ar == CUDA_SUCCESS && p_cuMemcpyDtoH(after, b->base, b->size) == CUDA_SUCCESS) {
			char path[4400];
			snprintf(path, sizeof path, "%s/mem-%zu-after.bin", dir, i);
			write_file(path, after, b->size);
			if (memcmp(after, b->before, b->size) != 0) changed_any = 1;
		}
		free(after);
	}
	(void)changed_any;

	/* image */
	pthread_mutex_lock(&mu);
	image_t *img = rec && rec->owner ? module_image(rec->owner) : NULL;
	if (img) write_image(img);
	int maxdyn = rec ? rec->max_dyn_smem : 0;
	pthread_mutex_unlock(&mu);

	char path[4400];
	if (pblob) {
		snprintf(path, sizeof path, "%s/params.bin", dir);
		write_file(path, pblob, psize);
	}
	snprintf(path, sizeof path, "%s/launch.json", dir);
	FILE *f = fopen(path, "w");
	if (f) {
		fprintf(f, "{\n  \"source\": \"driver\",\n  \"pid\": %d,\n  \"seq\": %ld,\n  \"index\": %ld,\n  \"api\": \"%s\",\n  \"kernel\": ",
			(int)getpid(), seq, myidx, L->api);
		json_str(f, name);
		fprintf(f, ",\n  \"function\": \"%p\",\n  \"grid\": [%u, %u, %u],\n  \"block\": [%u, %u, %u],\n  \"cluster\": [%u, %u, %u],\n",
			(void *)L->f, L->grid[0], L->grid[1], L->grid[2], L->block[0], L->block[1], L->block[2], L->cluster[0],
			L->cluster[1], L->cluster[2]);
		fprintf(f, "  \"smem\": %u,\n  \"max_dynamic_smem_attr\": %d,\n  \"cooperative\": %s,\n  \"stream\": \"%p\",\n", L->smem,
			maxdyn, L->cooperative ? "true" : "false", (void *)L->stream);
		fputs("  \"image\": ", f);
		if (img) {
			json_str(f, img->file);
			fprintf(f, ",\n  \"image_kind\": \"%s\"", img->kind);
			if (img->path[0]) {
				fputs(",\n  \"image_path\": ", f);
				json_str(f, img->path);
			}
		} else {
			fputs("null", f);
		}
		fprintf(f, ",\n  \"param_bytes\": %s,\n  \"params\": [", pblob ? "\"params.bin\"" : "null");
		for (int i = 0; i < np; i++) fprintf(f, "%s{\"offset\": %zu, \"size\": %zu}", i ? ", " : "", offs[i], sizes[i]);
		fprintf(f, "],\n  \"tensormaps\": [%s],\n  \"buffers\": [", tmjson);
		for (size_t i = 0; i < nb; i++) {
			buf_t *b = &bufs[i];
			fprintf(f, "%s\n    {\"base\": \"0x%llx\", \"size\": %zu, \"allocated_by\": \"%s\", \"refs\": [%s]", i ? "," : "",
				(unsigned long long)b->base, b->size, b->how, b->refs);
			if (b->left_out) {
				fputs(", \"left_out\": ", f);
				json_str(f, b->why);
			} else {
				fprintf(f, ", \"before\": \"mem-%zu-before.bin\", \"after\": \"mem-%zu-after.bin\"", i, i);
			}
			fputs("}", f);
		}
		fprintf(f, "\n  ],\n  \"launch_result\": %d,\n  \"sync_result\": %d,\n  \"notes\": [%s]", lr, ar, notes);
		char *note = pending_note;
		pending_note = NULL;
		if (note) {
			fputs(",\n  \"annotation\": ", f);
			fputs(note, f);
			free(note);
		}
		fputs("\n}\n", f);
		fclose(f);
	}
	for (size_t i = 0; i < nb; i++) free(bufs[i].before);
	free(bufs);
	free(pblob);
	free(offs);
	free(sizes);
	logf_("captured launch %ld of %s (%s) into %s", myidx, name, L->api, dir);
	free(name);
	return lr;
}

/* tcsim_capture_note attaches a JSON object to this thread's next
 * launch; the Triton side uses it to name arguments. */
void tcsim_capture_note(const char *json) __attribute__((visibility("default")));
void tcsim_capture_note(const char *json) {
	free(pending_note);
	pending_note = json ? strdup(json) : NULL;
}

static CUresult go_kernel(launch_t *L) {
	return real_cuLaunchKernel(L->f, L->grid[0], L->grid[1], L->grid[2], L->block[0], L->block[1], L->block[2],
				   L->smem, L->stream, L->params, L->extra);
}
static CUresult go_kernel_ptsz(launch_t *L) {
	return real_cuLaunchKernel_ptsz(L->f, L->grid[0], L->grid[1], L->grid[2], L->block[0], L->block[1],
					L->block[2], L->smem, L->stream, L->params, L->extra);
}
static CUresult go_coop(launch_t *L) {
	return real_cuLaunchCooperativeKernel(L->f, L->grid[0], L->grid[1], L->grid[2], L->block[0], L->block[1],
					      L->block[2], L->smem, L->stream, L->params);
}
static CUresult go_coop_ptsz(launch_t *L) {
	return real_cuLaunchCooperativeKernel_ptsz(L->f, L->grid[0], L->grid[1], L->grid[2], L->block[0],
						   L->block[1], L->block[2], L->smem, L->stream, L->params);
}

static __thread const CUlaunchConfig *ex_config;
static CUresult go_ex(launch_t *L) { return real_cuLaunchKernelEx(ex_config, L->f, L->params, L->extra); }
static CUresult go_ex_ptsz(launch_t *L) { return real_cuLaunchKernelEx_ptsz(ex_config, L->f, L->params, L->extra); }

#define PLAIN_LAUNCH(api_)                                                                      \
	launch_t L = {api_, f, {gx, gy, gz}, {bx, by, bz}, {0, 0, 0}, smem, s, 0, params, NULL}

CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
			unsigned bz, unsigned smem, CUstream s, void **params, void **extra) {
	ensure_init();
	PLAIN_LAUNCH("cuLaunchKernel");
	L.extra = extra;
	return capture_launch(&L, go_kernel);
}

CUresult cuLaunchKernel_ptsz(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
			     unsigned bz, unsigned smem, CUstream s, void **params, void **extra) {
	ensure_init();
	PLAIN_LAUNCH("cuLaunchKernel");
	L.extra = extra;
	return capture_launch(&L, go_kernel_ptsz);
}

CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
				   unsigned by, unsigned bz, unsigned smem, CUstream s, void **params) {
	ensure_init();
	PLAIN_LAUNCH("cuLaunchCooperativeKernel");
	L.cooperative = 1;
	return capture_launch(&L, go_coop);
}

CUresult cuLaunchCooperativeKernel_ptsz(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
					unsigned by, unsigned bz, unsigned smem, CUstream s, void **params) {
	ensure_init();
	PLAIN_LAUNCH("cuLaunchCooperativeKernel");
	L.cooperative = 1;
	return capture_launch(&L, go_coop_ptsz);
}

static launch_t ex_launch(const CUlaunchConfig *c, CUfunction f, void **params, void **extra) {
	launch_t L = {"cuLaunchKernelEx", f, {c->gridDimX, c->gridDimY, c->gridDimZ},
		      {c->blockDimX, c->blockDimY, c->blockDimZ}, {0, 0, 0}, c->sharedMemBytes, c->hStream, 0, params, extra};
	for (unsigned i = 0; c->attrs && i < c->numAttrs; i++) {
		const CUlaunchAttribute *a = &c->attrs[i];
		if (a->id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) {
			L.cluster[0] = a->value.clusterDim.x;
			L.cluster[1] = a->value.clusterDim.y;
			L.cluster[2] = a->value.clusterDim.z;
		} else if (a->id == CU_LAUNCH_ATTRIBUTE_COOPERATIVE) {
			L.cooperative = a->value.cooperative != 0;
		}
	}
	return L;
}

CUresult cuLaunchKernelEx(const CUlaunchConfig *c, CUfunction f, void **params, void **extra) {
	ensure_init();
	if (!c) return real_cuLaunchKernelEx(c, f, params, extra);
	launch_t L = ex_launch(c, f, params, extra);
	ex_config = c;
	return capture_launch(&L, go_ex);
}

CUresult cuLaunchKernelEx_ptsz(const CUlaunchConfig *c, CUfunction f, void **params, void **extra) {
	ensure_init();
	if (!c) return real_cuLaunchKernelEx_ptsz(c, f, params, extra);
	launch_t L = ex_launch(c, f, params, extra);
	ex_config = c;
	return capture_launch(&L, go_ex_ptsz);
}
