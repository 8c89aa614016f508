// Step 08 in plain CUDA: step 07's kernel on a one-dimensional grid whose blocks take their
// tiles in column order (08-diagonal's headline variant, column), in float. Block b moves the
// tile in tile row b mod gy and tile column b / gy, so consecutive blocks walk down a column
// of input tiles, which is a row of output tiles: blocks that run together write neighbouring
// pieces of the same output rows.
//
// No course code: build it alone with
//   nvcc -O3 -arch=sm_90 plain.cu -o 08-diagonal-plain
// and run `08-diagonal-plain [ROWS COLS]` (default 8192 8192). It checks the output bit for bit
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

// Where tile element (r, c) is stored in its row of 64: the row's 16 chunks of 4 floats (16
// bytes) are permuted, chunk c / 4 going to chunk (c / 4) XOR (r / 4 mod 16); a chunk stays
// whole. Four neighbouring rows share a permutation, and rows 4 apart differ in it, so the 8
// chunks a gather reads at once (8 row groups, one tile column) sit in 8 different groups of
// 4 banks: all 32 banks, one wavefront.
__device__ __forceinline__ int swizzled(int r, int c) {
  return ((c / 4) ^ (r / 4 % 16)) * 4 + c % 4;
}

// Each block moves one 64 x 64 tile with 512 threads: step 07's moves, on the tile its number
// gives it. Loads: thread t takes the float4 at tile row t / 16 (+ 32 in the second pass),
// columns 4 (t % 16) .. + 3: a warp reads two whole 256-byte row pieces. Stores: lane l of warp w
// gathers tile rows 4 (l % 8 + 8 (w % 2))
// .. + 3 of tile column l / 8 + 4 (w / 2) (+ 32 in the second pass), which are 4 consecutive
// elements of one output row, and stores them as one float4. Both sides are multiples of 4
// on this path, so a float4 lies wholly inside or wholly outside the matrix.
__global__ void __launch_bounds__(512)
    transpose_swizzled(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  __shared__ alignas(16) float tile[64 * 64];
  const int t = threadIdx.x, lane = t % 32, warp = t / 32;
  // Block b takes, in column order, tile (b mod gy, b / gy) of the gy tiles down the matrix.
  const unsigned gy = (rows + 63u) / 64;
  const int r0 = blockIdx.x % gy * 64, c0 = blockIdx.x / gy * 64;  // the tile's first row, column
  const bool whole = r0 + 63 < rows && c0 + 63 < cols;             // the same for the whole block
  const int lc = 4 * (t % 16);  // the tile column a load starts at
  float4 v[2];
#pragma unroll
  for (int p = 0; p < 2; ++p) {  // both loads first, into registers
    const int r = t / 16 + 32 * p;
    if (whole || (r0 + r < rows && c0 + lc < cols))
      v[p] = *reinterpret_cast<const float4*>(&in[int64_t(r0 + r) * cols + c0 + lc]);
  }
#pragma unroll
  for (int p = 0; p < 2; ++p) {
    const int r = t / 16 + 32 * p;
    if (whole || (r0 + r < rows && c0 + lc < cols))
      *reinterpret_cast<float4*>(&tile[r * 64 + swizzled(r, lc)]) = v[p];  // one 16-byte store
  }
  __syncthreads();
  const int sc = 4 * (lane % 8 + 8 * (warp % 2));  // the first of the 4 tile rows gathered
#pragma unroll
  for (int p = 0; p < 2; ++p) {
    const int sr = lane / 8 + 4 * (warp / 2) + 32 * p;  // the tile column: output row c0 + sr
    if (whole || (c0 + sr < cols && r0 + sc < rows)) {
      const float4 w = {
          tile[sc * 64 + swizzled(sc, sr)], tile[(sc + 1) * 64 + swizzled(sc + 1, sr)],
          tile[(sc + 2) * 64 + swizzled(sc + 2, sr)], tile[(sc + 3) * 64 + swizzled(sc + 3, sr)]};
      *reinterpret_cast<float4*>(&out[int64_t(c0 + sr) * rows + r0 + sc]) = w;
    }
  }
}

// Where a side is not a multiple of 4, a float4 would straddle two rows: the same tile and
// block order, one element a thread and pass, 1024 threads, with the simple swizzle (column
// XOR row). A warp
// reads 32 consecutive elements of one tile row and writes 32 of one output row.
__global__ void __launch_bounds__(1024)
    transpose_fallback(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  __shared__ float tile[64 * 64];
  const int t = threadIdx.x;
  const unsigned gy = (rows + 63u) / 64;
  const int r0 = blockIdx.x % gy * 64, c0 = blockIdx.x / gy * 64;
  float v[4];
  // Pass p: tile row 32 (p % 2) + t / 32, column 32 (p / 2) + t % 32.
#pragma unroll
  for (int p = 0; p < 4; ++p) {
    const int r = 32 * (p % 2) + t / 32, c = 32 * (p / 2) + t % 32;
    if (r0 + r < rows && c0 + c < cols) v[p] = in[int64_t(r0 + r) * cols + c0 + c];
  }
#pragma unroll
  for (int p = 0; p < 4; ++p) {
    const int r = 32 * (p % 2) + t / 32, c = 32 * (p / 2) + t % 32;
    if (r0 + r < rows && c0 + c < cols) tile[r * 64 + (c ^ r)] = v[p];
  }
  __syncthreads();
#pragma unroll
  for (int p = 0; p < 4; ++p) {  // output row c0 + r, column r0 + c: tile element (c, r)
    const int r = 32 * (p % 2) + t / 32, c = 32 * (p / 2) + t % 32;
    if (c0 + r < cols && r0 + c < rows)
      out[int64_t(c0 + r) * rows + r0 + c] = tile[c * 64 + (r ^ c)];
  }
}

static void launch(const float* in, float* out, int rows, int cols) {
  const unsigned grid = (cols + 63u) / 64 * ((rows + 63u) / 64);  // a block a tile
  if (rows % 4 == 0 && cols % 4 == 0)  // cudaMalloc's pointers are 256-byte aligned
    transpose_swizzled<<<grid, 512>>>(in, out, rows, cols);
  else
    transpose_fallback<<<grid, 1024>>>(in, out, rows, cols);
}

// The matrices the launch can cover, and what the usage line says of them.
static bool fits(long long rows, long long cols) {
  return (rows + 63) / 64 * ((cols + 63) / 64) <= 2147483647;
}
static const char* const kFits =
    "at most 2^31 - 1 tiles of 64 x 64: the grid holds at most 2147483647 blocks";

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
