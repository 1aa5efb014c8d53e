// General CUDA C++ for tcsim's PTX front-end tests: the compiler chooses the
// instructions (loads, arithmetic, conversions, warp intrinsics, atomics,
// calls, local memory, half and fp8 types).
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cstdio>
#include <cstdint>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

__constant__ float c_coeffs[8] = {1.f, -1.f, 0.5f, 2.f, 3.f, 4.f, 5.f, 6.f};
__device__ unsigned g_counter;
__managed__ int m_flag;

__device__ __noinline__ float poly(float x, int n) {
  float acc = 0.f;
  for (int i = 0; i < n; ++i) acc = fmaf(acc, x, c_coeffs[i & 7]);
  return acc;
}

typedef float (*unary_fn)(float);
__device__ float f_sq(float x) { return x * x; }
__device__ float f_neg(float x) { return -x; }
__device__ unary_fn g_fns[2] = {f_sq, f_neg};

__global__ void __launch_bounds__(256, 2)
general_kernel(const float4* __restrict__ in, float* out, const __half2* h, __nv_bfloat162* bf,
               const __nv_fp8x2_e4m3* f8, int64_t* i64, unsigned* u, int n, int sel) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid >= n) return;
  float4 v = in[tid];
  float s = v.x * v.y + v.z / v.w;
  s += __expf(s) + expf(v.x) + tanhf(v.y) + rsqrtf(fabsf(v.z) + 1.f) + __sinf(s) + sinf(v.w);
  s += sqrtf(fabsf(s)) + log2f(fabsf(s) + 1.f) + __fdividef(s, 3.f);
  s = fminf(fmaxf(s, -10.f), 10.f);
  double d = (double)s * 3.0 + (double)tid;
  s += (float)d;
  int k = __float2int_rn(s) ^ (tid << 3);
  k = __popc(k) + __clz(k) + __brev(k) + __ffs(k) + (k >> 7) + (int)((unsigned)k >> 3);
  k += __byte_perm(k, tid, 0x3210) + __funnelshift_l(k, tid, 5) + __umulhi(k, tid);
  long long ll = (long long)k * tid + i64[tid] / (n + 1) + i64[tid] % 7;
  i64[tid] = ll;
  __half2 hv = h[tid];
  hv = __hfma2(hv, hv, __float2half2_rn(1.f));
  hv = __hmax2(hv, __hneg2(hv));
  __nv_bfloat162 bv = bf[tid];
  bv = __hmul2(bv, bv);
  bf[tid] = __hadd2(bv, __float22bfloat162_rn(__half22float2(hv)));
  float2 f2 = __half22float2(hv);
  __nv_fp8x2_e4m3 q(f2);
  float2 back = float2(q);
  float2 f8v = float2(f8[tid]);
  s += back.x + back.y + f8v.x;
  unsigned mask = __ballot_sync(0xffffffffu, s > 0.f);
  s += __shfl_xor_sync(0xffffffffu, s, 16);
  s += __shfl_down_sync(0xffffffffu, s, 1);
  s += __shfl_up_sync(0xffffffffu, s, 2);
  s += __shfl_sync(0xffffffffu, s, 0);
  unsigned any = __any_sync(mask, tid & 1) + __all_sync(mask, tid > 2);
  unsigned m = __match_any_sync(0xffffffffu, tid & 3);
  auto warp = cg::tiled_partition<32>(cg::this_thread_block());
  unsigned r = cg::reduce(warp, (unsigned)tid, cg::plus<unsigned>());
  r += __reduce_max_sync(0xffffffffu, (unsigned)tid);
  atomicAdd(&g_counter, r + any + m + __activemask());
  atomicMax(u + (tid & 15), r);
  atomicCAS(u + 16, 0u, r);
  atomicAdd(out + (tid & 7), s);
  float local[16];
  for (int i = 0; i < 16; ++i) local[i] = s * i;
  s += local[(tid * 7) & 15];
  switch (sel & 7) {
    case 0: s += 1.f; break;
    case 1: s *= 2.f; break;
    case 2: s -= 3.f; break;
    case 3: s = poly(s, sel); break;
    case 4: s = g_fns[sel & 1](s); break;
    case 5: s += __saturatef(s); break;
    case 6: s += (float)clock64(); break;
    default: s += m_flag; break;
  }
  if (tid == 0) printf("s=%f k=%d\n", s, k);
  __syncthreads();
  __syncwarp();
  __threadfence();
  out[tid] = s + (float)__ldg(&in[tid].x) + __ldcs(&out[tid + 1]);
}
