// Step 03 in plain CUDA: a 32 x 32 tile in shared memory, moved by 32 x 32 threads, so that
// both the loads and the stores are coalesced (03-shared's headline variant, tile-32x32), in
// float.
//
// No course code: build it alone with
//   nvcc -O3 -arch=sm_90 plain.cu -o 03-shared-plain
// and run `03-shared-plain [ROWS COLS]` (default 8192 8192). It checks the output bit for bit
// against a CPU transpose, after the first launch and after the timed ones, and reports the
// median of 50 launches timed with CUDA events.
// Exit status: 0 exact, 1 wrong, 2 bad input, 3 no CUDA device, 4 a CUDA error.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CUDA_CHECK(call)                                                               \
  do {                                                                                 \
    cudaError_t e_ = (call);                                                           \
    if (e_ != cudaSuccess) {                                                           \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      std::exit(4);                                                                    \
    }                                                                                  \
  } while (0)

// Each block moves one 32 x 32 tile: a thread loads one element along an input row into the
// tile, and after the barrier stores one along an output row, read down a tile column. That
// column read puts all 32 lanes of a warp in one shared-memory bank: a 32-way conflict.
__global__ void transpose_tile(const float* __restrict__ in, float* __restrict__ out, int rows,
                               int cols) {
  __shared__ float tile[32][32];
  const int r = blockIdx.y * 32 + threadIdx.y;  // the input element this thread loads
  const int c = blockIdx.x * 32 + threadIdx.x;
  if (r < rows && c < cols) tile[threadIdx.y][threadIdx.x] = in[int64_t(r) * cols + c];
  __syncthreads();
  const int out_r = blockIdx.x * 32 + threadIdx.y;  // the output element it stores
  const int out_c = blockIdx.y * 32 + threadIdx.x;
  if (out_r < cols && out_c < rows)
    out[int64_t(out_r) * rows + out_c] = tile[threadIdx.x][threadIdx.y];
}

static void launch(const float* in, float* out, int rows, int cols) {
  const dim3 block(32, 32);
  const dim3 grid((cols + 31u) / 32, (rows + 31u) / 32);
  transpose_tile<<<grid, block>>>(in, out, rows, cols);
}

// The matrices the launch can cover, and what the usage line says of them.
static bool fits(long long rows, long long cols) {
  return cols >= 1 && (rows + 31) / 32 <= 65535;
}
static const char* const kFits =
    "ROWS at most 2097120: the grid holds at most 65535 blocks of 32 along y";

// --- Everything below is the same in every plain step: input, check, timing. ------------

// How many output words differ from the CPU transpose of @p in (compared as bits). It walks
// 64 input rows at a time, so that both matrices are read a cache line at a time: a 2^31
// element matrix is checked in seconds, not minutes.
static int64_t wrong_words(const std::vector<uint32_t>& in, const std::vector<uint32_t>& out,
                           int rows, int cols) {
  int64_t wrong = 0;
  for (int64_t r0 = 0; r0 < rows; r0 += 64)
    for (int64_t c = 0; c < cols; ++c)
      for (int64_t r = r0; r < std::min<int64_t>(r0 + 64, rows); ++r)
        wrong += out[c * rows + r] != in[r * cols + c];
  return wrong;
}

// A whole number from 1 to 2^31 - 1, or -1.
static long long whole(const char* s) {
  char* end = nullptr;
  const long long v = std::strtoll(s, &end, 10);
  return (end != s && *end == '\0' && v >= 1 && v <= 2147483647) ? v : -1;
}

int main(int argc, char** argv) {
  long long rows = 8192, cols = 8192;
  if (argc == 3) {
    rows = whole(argv[1]);
    cols = whole(argv[2]);
  }
  if ((argc != 1 && argc != 3) || rows < 1 || cols < 1 || !fits(rows, cols)) {
    std::fprintf(stderr, "usage: %s [ROWS COLS]: each at least 1, and %s\n", argv[0], kFits);
    return 2;
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "%s: no CUDA device\n", argv[0]);
    return 3;
  }
  const size_t n = size_t(rows) * size_t(cols), bytes = n * sizeof(float);
  std::vector<uint32_t> in(n), out(n);
  for (size_t i = 0; i < n; ++i) in[i] = uint32_t(i * 2654435761u) ^ uint32_t(i >> 32);
  float *d_in, *d_out;
  CUDA_CHECK(cudaMalloc(&d_in, bytes));
  CUDA_CHECK(cudaMalloc(&d_out, bytes));
  CUDA_CHECK(cudaMemcpy(d_in, in.data(), bytes, cudaMemcpyHostToDevice));

  // Poison the output, run once, check: an element the kernel forgets to write is caught.
  CUDA_CHECK(cudaMemset(d_out, 0xFF, bytes));
  launch(d_in, d_out, int(rows), int(cols));
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(out.data(), d_out, bytes, cudaMemcpyDeviceToHost));
  int64_t wrong = wrong_words(in, out, int(rows), int(cols));

  // 10 launches to warm up, then 50, each between its own pair of events: the median.
  std::vector<float> ms(50);
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  for (int i = 0; i < 10; ++i) launch(d_in, d_out, int(rows), int(cols));
  for (float& t : ms) {
    CUDA_CHECK(cudaEventRecord(start));
    launch(d_in, d_out, int(rows), int(cols));
    CUDA_CHECK(cudaEventRecord(stop));
    CUDA_CHECK(cudaEventSynchronize(stop));
    CUDA_CHECK(cudaEventElapsedTime(&t, start, stop));
  }
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpy(out.data(), d_out, bytes, cudaMemcpyDeviceToHost));
  wrong += wrong_words(in, out, int(rows), int(cols));
  std::nth_element(ms.begin(), ms.begin() + 25, ms.end());
  const double gbps = 2.0 * double(bytes) / (ms[25] * 1e-3) / 1e9;
  std::printf("%s: %lld x %lld float: %s, %.1f GB/s (median of 50 launches)\n", argv[0], rows, cols,
              wrong ? "WRONG" : "exact", gbps);
  if (wrong) std::printf("%lld words differ from the CPU transpose\n", (long long)wrong);
  CUDA_CHECK(cudaFree(d_in));
  CUDA_CHECK(cudaFree(d_out));
  return wrong ? 1 : 0;
}
