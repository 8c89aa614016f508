// Two kernels for tests/test_sass_check.py: the same four loads a thread, once issued back to
// back before the shared stores, once each stored before the next is issued (the loop is
// kept rolled, so every load waits for the previous store). scripts/sass_check.py must pass
// the first and fail the second.
__global__ void batched(const float* __restrict__ in, float* __restrict__ out) {
  __shared__ float tile[4 * 256];
  float v[4];
#pragma unroll
  for (int p = 0; p < 4; ++p) v[p] = in[p * 256 + threadIdx.x];
#pragma unroll
  for (int p = 0; p < 4; ++p) tile[p * 256 + threadIdx.x] = v[p];
  __syncthreads();
  out[threadIdx.x] = tile[255 - threadIdx.x];
}

__global__ void serial(const float* __restrict__ in, float* __restrict__ out) {
  __shared__ float tile[4 * 256];
#pragma unroll 1
  for (int p = 0; p < 4; ++p) tile[p * 256 + threadIdx.x] = in[p * 256 + threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = tile[255 - threadIdx.x];
}
