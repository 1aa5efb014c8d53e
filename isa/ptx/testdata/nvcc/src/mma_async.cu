// Ampere-style asynchronous copies and warp MMA through the CUDA APIs
// (cp.async via cuda_pipeline, wmma and inline mma.sync).
#include <cuda_pipeline.h>
#include <mma.h>
#include <cuda_fp16.h>
using namespace nvcuda;

__global__ void ampere_kernel(const float4* g, float* out, const half* a, const half* b) {
  __shared__ __align__(16) float4 buf[256];
  __pipeline_memcpy_async(&buf[threadIdx.x], &g[blockIdx.x * 256 + threadIdx.x], sizeof(float4));
  __pipeline_commit();
  __pipeline_wait_prior(0);
  __syncthreads();
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  wmma::fill_fragment(fc, 0.f);
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(out + blockIdx.x * 256, fc, 16, wmma::mem_row_major);
  unsigned ra[4] = {1, 2, 3, 4}, rb[2] = {5, 6};
  float c[4] = {0, 0, 0, 0};
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
               : "r"(ra[0] ^ threadIdx.x), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]));
  out[threadIdx.x] += buf[threadIdx.x].x + c[0] + c[3];
}
