// The CUDA C++ behind tiny_loc.ptx, for the stepper's source-mapping
// tests: the PTX was written by hand in nvcc's -lineinfo style (a .file
// table, .loc before the code of each line, inline asm in comments).
namespace cutlass {
template <class Kernel>
__global__ void device_kernel(typename Kernel::Params params) {
  unsigned tid = threadIdx.x;
  unsigned sum = 0;
  float x = 1.0f;
  for (int i = 0; i < 4; ++i) {
    sum += tid;
    x += x;
  }
  __shared__ unsigned buf[64];
  buf[tid] = sum;
  __syncthreads();
  asm volatile("bar.sync 0;");
  params.out[tid] = buf[tid];
}
}  // namespace cutlass
