/*
 * A tiny CUDA "program" for capture's tests, written as the CUDA runtime
 * talks to the driver: dlopen("libcuda.so.1"), then every entry point
 * through cuGetProcAddress_v2 (and one through plain dlsym). It loads a PTX
 * module, allocates, encodes a tensor map and launches two kernels, the
 * second with cuLaunchKernelEx and a cluster attribute.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char ptx[] =
	".version 8.0\n"
	".target sm_90a\n"
	".address_size 64\n"
	"\n"
	".visible .entry scale(\n"
	"\t.param .u64 .ptr .global .align 4 scale_param_0,\n"
	"\t.param .u64 .ptr .global .align 4 scale_param_1,\n"
	"\t.param .u32 scale_param_2\n"
	")\n"
	"{\n"
	"\t.reg .pred %p<2>;\n"
	"\t.reg .b32 %r<6>;\n"
	"\t.reg .f32 %f<3>;\n"
	"\t.reg .b64 %rd<8>;\n"
	"\n"
	"\tld.param.u64 %rd1, [scale_param_0];\n"
	"\tld.param.u64 %rd2, [scale_param_1];\n"
	"\tld.param.u32 %r2, [scale_param_2];\n"
	"\tmov.u32 %r3, %ctaid.x;\n"
	"\tmov.u32 %r4, %ntid.x;\n"
	"\tmov.u32 %r5, %tid.x;\n"
	"\tmad.lo.s32 %r1, %r3, %r4, %r5;\n"
	"\tsetp.ge.u32 %p1, %r1, %r2;\n"
	"\t@%p1 bra $L__done;\n"
	"\tcvta.to.global.u64 %rd3, %rd1;\n"
	"\tcvta.to.global.u64 %rd4, %rd2;\n"
	"\tmul.wide.u32 %rd5, %r1, 4;\n"
	"\tadd.s64 %rd6, %rd3, %rd5;\n"
	"\tld.global.f32 %f1, [%rd6];\n"
	"\tadd.f32 %f2, %f1, %f1;\n"
	"\tadd.s64 %rd7, %rd4, %rd5;\n"
	"\tst.global.f32 [%rd7], %f2;\n"
	"$L__done:\n"
	"\tret;\n"
	"}\n"
	"\n"
	".visible .entry tmcopy(\n"
	"\t.param .align 64 .b8 tmcopy_param_0[128],\n"
	"\t.param .u64 .ptr .global .align 4 tmcopy_param_1\n"
	")\n"
	"{\n"
	"\tret;\n"
	"}\n";

typedef int CUresult;
typedef unsigned long long CUdeviceptr;
typedef int (*getproc_t)(const char *, void **, int, unsigned long long, int *);

typedef struct { uint32_t id; char pad[4]; union { char raw[64]; struct { unsigned x, y, z; } cl; } v; } attr_t;
typedef struct {
	unsigned gx, gy, gz, bx, by, bz, smem;
	void *s;
	attr_t *attrs;
	unsigned nattrs;
} config_t;

#define CHECK(x) do { int r_ = (x); if (r_) { fprintf(stderr, "%s failed: %d\n", #x, r_); exit(1); } } while (0)

int main(void) {
	void *lib = dlopen("libcuda.so.1", RTLD_NOW);
	if (!lib) { fprintf(stderr, "dlopen: %s\n", dlerror()); return 1; }
	getproc_t getproc = (getproc_t)dlsym(lib, "cuGetProcAddress_v2");
	if (!getproc) { fprintf(stderr, "no cuGetProcAddress_v2\n"); return 1; }
#define GET(var, name) CHECK(getproc(name, (void **)&var, 12080, 0, NULL))
	int (*init)(unsigned); GET(init, "cuInit");
	int (*load)(void **, const void *); GET(load, "cuModuleLoadData");
	int (*getfn)(void **, void *, const char *); GET(getfn, "cuModuleGetFunction");
	int (*alloc)(CUdeviceptr *, size_t); GET(alloc, "cuMemAlloc");
	int (*mfree)(CUdeviceptr); GET(mfree, "cuMemFree");
	int (*h2d)(CUdeviceptr, const void *, size_t); GET(h2d, "cuMemcpyHtoD");
	int (*d2h)(void *, CUdeviceptr, size_t); GET(d2h, "cuMemcpyDtoH");
	int (*encode)(void *, int, unsigned, void *, const uint64_t *, const uint64_t *, const unsigned *,
		      const unsigned *, int, int, int, int); GET(encode, "cuTensorMapEncodeTiled");
	int (*launchex)(const config_t *, void *, void **, void **); GET(launchex, "cuLaunchKernelEx");
	/* the plain exported symbol, as a program linked with -lcuda calls it */
	int (*launch)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void *, void **, void **) =
		(int (*)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void *, void **, void **))dlsym(lib, "cuLaunchKernel");
	CHECK(init(0));
	void *mod, *scale, *tmcopy;
	CHECK(load(&mod, ptx));
	CHECK(getfn(&scale, mod, "scale"));
	CHECK(getfn(&tmcopy, mod, "tmcopy"));

	enum { N = 1000 };
	float x[N];
	for (int i = 0; i < N; i++) x[i] = (float)i * 0.25f - 7.0f;
	CUdeviceptr dx, dy, dsrc, dout;
	CHECK(alloc(&dx, sizeof x));
	CHECK(alloc(&dy, sizeof x + 256)); /* y starts 256 bytes into its allocation */
	CHECK(alloc(&dsrc, 64 * 4));
	CHECK(alloc(&dout, 64 * 4));
	CHECK(h2d(dx, x, sizeof x));
	float src[64];
	for (int i = 0; i < 64; i++) src[i] = (float)(i * i);
	CHECK(h2d(dsrc, src, sizeof src));

	CUdeviceptr y = dy + 256;
	unsigned n = N;
	void *args[] = {&dx, &y, &n};
	CHECK(launch(scale, 8, 1, 1, 128, 1, 1, 0, NULL, args, NULL));

	_Alignas(64) unsigned char map[128];
	uint64_t dims[1] = {64}, strides[1] = {0};
	unsigned box[1] = {64}, estr[1] = {1};
	CHECK(encode(map, 7 /* FLOAT32 */, 1, (void *)(uintptr_t)dsrc, dims, strides, box, estr, 0, 0, 0, 0));
	attr_t attr;
	memset(&attr, 0, sizeof attr);
	attr.id = 4; /* CLUSTER_DIMENSION */
	attr.v.cl.x = 2; attr.v.cl.y = 1; attr.v.cl.z = 1;
	config_t cfg = {2, 1, 1, 32, 1, 1, 1024, NULL, &attr, 1};
	void *args2[] = {map, &dout};
	CHECK(launchex(&cfg, tmcopy, args2, NULL));

	float y_host[N], out[64];
	CHECK(d2h(y_host, y, sizeof y_host));
	CHECK(d2h(out, dout, sizeof out));
	for (int i = 0; i < N; i++) if (y_host[i] != 2 * x[i]) { fprintf(stderr, "bad y[%d]\n", i); return 1; }
	for (int i = 0; i < 64; i++) if (out[i] != src[i]) { fprintf(stderr, "bad out[%d]\n", i); return 1; }
	CHECK(mfree(dx));
	printf("prog: ok\n");
	return 0;
}
