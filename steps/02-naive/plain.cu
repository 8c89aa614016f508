// Step 02 in plain CUDA: the naive transpose, one thread per element, the warps writing along
// output rows (02-naive's headline variant, write-coalesced, 32 x 8 threads), in float.
//
// No course code: build it alone with
//   nvcc -O3 -arch=sm_90 plain.cu -o 02-naive-plain
// and run `02-naive-plain [ROWS COLS]` (default 8192 8192). It checks the output bit for bit
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

// Thread (x, y) writes output row c, column r: x runs along the output's rows (coalesced
// stores) and down the input's columns (strided loads).
__global__ void transpose_naive(const float* __restrict__ in, float* __restrict__ out, int rows,
                                int cols) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;  // input row, output column
  const int c = blockIdx.y * blockDim.y + threadIdx.y;  // input column, output row
  if (r < rows && c < cols) out[int64_t(c) * rows + r] = in[int64_t(r) * cols + c];
}

static void launch(const float* in, float* out, int rows, int cols) {
  const dim3 block(32, 8);
  const dim3 grid((rows + 31u) / 32, (cols + 7u) / 8);
  transpose_naive<<<grid, block>>>(in, out, rows, cols);
}

// The matrices the launch can cover, and what the usage line says of them.
static bool fits(long long rows, long long cols) {
  return rows >= 1 && (cols + 7) / 8 <= 65535;
}
static const char* const kFits =
    "COLS at most 524280: the grid holds at most 65535 blocks of 8 along y";

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
