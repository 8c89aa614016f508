// Step 17 in plain CUDA: step 15's kernels, whose line-window loads ask the L2 to fetch the
// 256 bytes around each (17-prefetch's headline variant, prefetch), in float. Where the row
// length is odd, a block's 64-column piece of a row starts anywhere in a 256-byte block of
// the DRAM and ends in the next one, so each such block is read in two parts, by the blocks of
// two neighbouring columns of tiles, one column apart in time. With the hint
// (ld.global.nc.L2::256B, LDG.E.LTC256B in the machine code), the first part's miss brings the
// whole block into the L2, and the second finds its part there if the L2 still holds it: in
// matrices of at most 16384 rows, where a column of tiles is short enough. From 32705 rows on
// (512 tile rows, two bands of 256), the blocks go down their columns of tiles band by band,
// the hint in their loads too; between, step 15's kernels run as they are.
//
// No course code: build it alone with
//   nvcc -O3 -arch=sm_90 plain.cu -o 17-prefetch-plain
// and run `17-prefetch-plain [ROWS COLS]` (default 8192 8192). It checks the output bit for bit
// against a CPU transpose, after the first launch and after the timed ones, and reports the
// median of 50 launches timed with CUDA events.
// Exit status: 0 exact, 1 wrong, 2 bad input, 3 no CUDA device, 4 a CUDA error, 6 a GPU of
// compute capability below 8.0, which has no such hint (nothing is launched).
//
// scripts/plain_check.py compares each kernel's memory instructions with the step's kernel
// at a shape where the step runs it:
// plain_check: transpose_swizzled 8192x8192
// plain_check: transpose_prefetch 4099x8191
// plain_check: transpose_lines 16385x3001
// plain_check: transpose_bands 32705x3001
// plain_check: transpose_skewed 4099x8190
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

// Where output rows are whole sectors: step 08's kernel, unchanged. Each block moves one 64 x 64
// tile with 512 threads, on a one-dimensional grid, block b taking its tile in column order.
// Loads: thread t takes the float4 at tile row t / 16 (+ 32 in the second pass), columns
// 4 (t % 16) .. + 3: a warp reads two whole 256-byte row pieces. Stores: lane l of warp w
// gathers tile rows 4 (l % 8 + 8 (w % 2)) .. + 3 of tile column l / 8 + 4 (w / 2) (+ 32 in the
// second pass), which are 4 consecutive elements of one output row, and stores them as one
// float4. Each 64-element piece of an output row starts at a multiple of 64 in the row, and
// the row at a multiple of 8 in memory: the piece is whole sectors.
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

// Output row c (input column c) starts at element c * rows of the output. head: where the
// row's first sector boundary lies in it (0 when the row starts on one). tail: where its last
// whole sector ends (rows when the row ends on a boundary). From head to tail the row is whole
// sectors, which the main blocks write; before head and from tail on lie the sectors it
// shares with its neighbours (and the matrix's last sector), which the seam blocks write.
__device__ __forceinline__ int head(int64_t c, int rows) {
  return int(-(c * rows) & 7);
}
__device__ __forceinline__ int tail(int64_t c, int rows) {
  return rows - int((c + 1) * rows & 7);
}

// The tile a block of the skewed kernels takes: column x and row y of the grid of tiles,
// whose last row is the seam blocks'. The GPU starts a grid's blocks x first (in practice), so
// block (x, y, z) takes the tile in row x and column z gridDim.y + y: consecutive blocks go
// down a column of tiles, its seam block last (z only past 65535 columns of tiles).
struct Tile {
  int x, y;
  bool seam;
};
__device__ __forceinline__ Tile tile_of() {
  return {int(blockIdx.z * gridDim.y + blockIdx.y), int(blockIdx.x), blockIdx.x + 1 == gridDim.x};
}
// The same in bands of 256 tile rows (16384 input rows), on a one-dimensional grid of a block
// a tile (gx columns of tiles by gy rows, the seam row included): consecutive blocks go down a
// column of tiles within a band, then the next column of the same band; the bands follow one
// another, the seam row at the end of the last.
__device__ __forceinline__ Tile band_tile_of(int cols) {
  const unsigned gx = (cols + 63u) / 64, gy = gridDim.x / gx, last = (gy - 1) / 256;
  const unsigned band = blockIdx.x / (256 * gx) < last ? blockIdx.x / (256 * gx) : last;
  const unsigned first = 256 * band, h = gy - first < 256 ? gy - first : 256;  // its height
  const unsigned at = blockIdx.x - first * gx;  // the block's place in its band
  return {int(at / h), int(first + at % h), first + at % h + 1 == gy};
}

// A seam block, of the column of tiles x.
__device__ __forceinline__ void seam_block(const float* __restrict__ in, float* __restrict__ out,
                                           int rows, int cols, int x) {
  const int t = threadIdx.x;
  // Lane group g = t / 8 of pass p takes output row c = 128 x + 64 p + g and
  // the sector q in which that row starts, if no earlier row starts in q (each sector has
  // one owner) and if no main block writes q: q holds the end of row c - 1, or the start of
  // row c + 1, or the matrix ends in it (row c = cols owns the last sector, where no row
  // starts in it). Lane k of the group moves output element f = 8 q + k, of row c - 1 or
  // row c (or, where rows < 8, a row or more after c): a sector, whole, in one instruction.
  // A lane stores what it loaded itself, so it needs no tile (the step's kernel, one loop
  // for all blocks, passes the elements through its tile all the same).
  const int64_t total = int64_t(rows) * cols;
  bool moves[2];
  int64_t f[2];
  float v[2];
#pragma unroll
  for (int p = 0; p < 2; ++p) {
    const int64_t c = int64_t(x) * 128 + 64 * p + t / 8, start = c * rows, q = start / 8;
    const bool owner = c <= cols && 8 * q < total && (c == 0 || (start - rows) / 8 != q);
    const bool shared = start != 8 * q || start + rows < 8 * q + 8 || 8 * q + 8 > total;
    f[p] = 8 * q + t % 8;
    const int64_t row = f[p] < start ? c - 1 : c + int(f[p] - start) / rows;  // f's output row
    moves[p] = owner && shared && f[p] < total;
    if (moves[p]) v[p] = in[(f[p] - row * rows) * cols + row];  // input (f - row rows, row)
  }
#pragma unroll
  for (int p = 0; p < 2; ++p)
    if (moves[p]) out[f[p]] = v[p];
}

// Step 10's main block of tile (x, y), with its 72 x 64 tile: no move needs a check where it
// is whole.
__device__ __forceinline__ void skewed_block(const float* __restrict__ in, float* __restrict__ out,
                                             float* tile, int rows, int cols, Tile b, bool whole) {
  const int t = threadIdx.x;
  const int r0 = b.y * 64, c0 = b.x * 64;  // the first input row, column
  // Pass p: tile row i0 + 8 p, column j, which lies 8 p input rows after pass 0's element.
  const int i0 = t / 64, j = t % 64;
  const int64_t from = int64_t(r0 + i0) * cols + c0 + j;  // the same in every pass
  float v[9];
#pragma unroll
  for (int p = 0; p < 9; ++p)  // all 9 loads first, into registers: 8 p rows further each
    if (whole || (r0 + i0 + 8 * p < rows && c0 + j < cols)) v[p] = in[from + int64_t(8 * p) * cols];
#pragma unroll
  for (int p = 0; p < 9; ++p)  // tile row i0 + 8 p: its columns XOR (i0 + 8 p) mod 64
    if (whole || (r0 + i0 + 8 * p < rows && c0 + j < cols))
      tile[(i0 + 8 * p) * 64 + ((j ^ i0) ^ ((8 * p) & 63))] = v[p];
  __syncthreads();
  // Pass p: output row c + 8 p, its j-th element from head(c + 8 p), which is head(c): 8 p
  // output rows are 8 p x rows elements, whole sectors. It reads tile (i, u0 + 8 p), in slot
  // (u0 + 8 p) XOR (i mod 64) of row i: bits 0-2 are u0 XOR i, bits 3-5 are 8 p XOR i.
  const int u0 = t / 64;
  const int64_t c = c0 + u0;
  const int i = head(c, rows) + j;
  const int64_t to = c * rows + r0 + i;  // the same in every pass
#pragma unroll
  for (int p = 0; p < 8; ++p)
    if (whole || (c + 8 * p < cols && r0 + i < tail(c + 8 * p, rows)))
      out[to + int64_t(8 * p) * rows] = tile[i * 64 + ((u0 ^ (i & 7)) | ((8 * p) ^ (i & 56)))];
}

// Where output rows are not whole sectors: a 2D grid, 64 input columns (output rows) by 64
// input rows a block, and one more row of blocks for the seams; 512 threads, one element a
// thread and pass. Block (x, y) writes, of each output row c = 64 x .. 64 x + 63, the 64
// elements from head(c) + 64 y on: a warp writes 32 consecutive elements from a boundary, 4
// whole sectors. head(c) differs from row to row (0 to 7), so the block loads 72 input rows,
// its 64 and 8 more, into a 72 x 64 tile whose row i has its columns XOR i mod 64: the loads
// along a row and the gathers down a column both meet 32 banks. A thread's passes are 8 rows
// apart: what is the same in all of them is computed once.
__global__ void __launch_bounds__(512)
    transpose_skewed(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  __shared__ float tile[72 * 64];
  const Tile b = tile_of();
  if (b.x > (cols - 1) / 64) return;  // past the last column of tiles (z > 0 only)
  if (b.seam) return seam_block(in, out, rows, cols, b.x);
  const int r0 = b.y * 64, c0 = b.x * 64;  // the first input row, column
  // No move needs a check where the block's 64 columns and 72 rows lie inside, and 8 rows more
  // (then every piece it stores ends before tail(c)).
  skewed_block(in, out, tile, rows, cols, b, r0 + 80 <= rows && c0 + 63 < cols);
}

// Where the row length is odd: step 10's skewed kernel, whose whole blocks load through line
// windows. Tile row i holds input row r0 + i from the start of the line its piece starts in,
// off(i) = ((r0 + i) cols + c0) mod 32 elements before the piece: a window of 96 elements, 24
// chunks of 4, each chunk inside one line. Thread t loads chunk q = t mod 24 of tile rows
// t / 24 + 21 k (k = 0 to 3; threads 504 to 511 load none), where the row is one a store reads
// and the chunk overlaps the piece; elements of a chunk outside the piece land in the tile and
// are never stored. The stores are step 10's, element (i, u) read from slot 96 i + off(i) + u.
// The windows' rows are 96 floats, three whole rows of banks: the 32 rows a warp's store
// gathers from fall in 32 different banks because their off(i) differ, which holds where the
// row length is odd. The offsets count from element 0: the input must start on a line
// (cudaMalloc's pointers do).
__device__ __forceinline__ int off(int64_t r, int c0, int cols) {
  return int((r * cols + c0) & 31);
}
// The 16 bytes at p; with HINT, the load also asks the L2, where it misses, to fetch the
// aligned 256 bytes around p from the DRAM. The input does not change while the kernel runs
// (.nc). Below compute capability 8.0 there is no such hint (and launch() runs nothing there).
template <bool HINT>
__device__ __forceinline__ float4 load16(const float* p) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if (HINT) {
    float4 v;
    asm("ld.global.nc.L2::256B.v4.f32 {%0, %1, %2, %3}, [%4];"
        : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
        : "l"(p));
    return v;
  }
#endif
  return *reinterpret_cast<const float4*>(p);
}
template <bool HINT, bool BANDS>
__device__ __forceinline__ void lines_block(const float* __restrict__ in, float* __restrict__ out,
                                            int rows, int cols) {
  __shared__ alignas(16) float tile[72 * 96];
  const Tile b = BANDS ? band_tile_of(cols) : tile_of();
  if (b.x > (cols - 1) / 64) return;  // past the last column of tiles (z > 0 only)
  if (b.seam) return seam_block(in, out, rows, cols, b.x);
  const int t = threadIdx.x;
  const int r0 = b.y * 64, c0 = b.x * 64;    // the first input row, column
  if (!(r0 + 80 <= rows && c0 + 63 < cols))  // not a whole block: step 10's, every move checked
    return skewed_block(in, out, tile, rows, cols, b, false);
  const int g = (rows & -rows) < 8 ? (rows & -rows) : 8;  // gcd(rows, 8)
  const int read = 72 - g;  // the tile rows a store reads: 64 and the furthest head(c) + 1
  const int q = t % 24;     // the chunk of its window a thread loads
  float4 v[4];
#pragma unroll
  for (int k = 0; k < 4; ++k) {  // all 4 loads first, into registers: 21 rows further each
    const int i = t / 24 + 21 * k, o = i < 72 ? off(r0 + i, c0, cols) : 0;
    if (t / 24 < 21 && i < read && 4 * q + 4 > o && 4 * q < o + 64)
      v[k] = load16<HINT>(&in[int64_t(r0 + i) * cols + c0 - o + 4 * q]);
  }
#pragma unroll
  for (int k = 0; k < 4; ++k) {  // each into its window: one 16-byte store
    const int i = t / 24 + 21 * k, o = i < 72 ? off(r0 + i, c0, cols) : 0;
    if (t / 24 < 21 && i < read && 4 * q + 4 > o && 4 * q < o + 64)
      *reinterpret_cast<float4*>(&tile[i * 96 + 4 * q]) = v[k];
  }
  __syncthreads();
  // Pass p: output row c + 8 p, its j-th element from head(c), as step 10's; tile row i's
  // element u (input column c0 + u) sits at 96 i + off(i) + u.
  const int u0 = t / 64, j = t % 64;
  const int64_t c = c0 + u0;
  const int i = head(c, rows) + j;
  const int64_t to = c * rows + r0 + i;  // the same in every pass
  const int from = i * 96 + off(r0 + i, c0, cols) + u0;
#pragma unroll
  for (int p = 0; p < 8; ++p) out[to + int64_t(8 * p) * rows] = tile[from + 8 * p];
}
__global__ void __launch_bounds__(512)
    transpose_prefetch(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  lines_block<true, false>(in, out, rows, cols);
}
__global__ void __launch_bounds__(512)
    transpose_lines(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  lines_block<false, false>(in, out, rows, cols);
}
__global__ void __launch_bounds__(512)
    transpose_bands(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  lines_block<true, true>(in, out, rows, cols);
}

// The hint needs compute capability 8.0. The first launch asks the device; on an older one the
// program says so and stops, exit status 6, before any kernel runs.
static void needs_compute_capability_8() {
  int device = 0;
  cudaDeviceProp prop;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  if (prop.major < 8) {
    std::fprintf(stderr,
                 "17-prefetch-plain: needs a GPU of compute capability 8.0 or newer (the L2 "
                 "prefetch-size hint); %s is %d.%d: not run\n",
                 prop.name, prop.major, prop.minor);
    std::exit(6);
  }
}

static void launch(const float* in, float* out, int rows, int cols) {
  static const bool checked = (needs_compute_capability_8(), true);  // once, at the first launch
  (void)checked;
  if (rows % 8 == 0 && cols % 4 == 0) {  // cudaMalloc's pointers are 256-byte aligned
    const unsigned grid = (cols + 63u) / 64 * ((rows + 63u) / 64);  // a block a tile
    transpose_swizzled<<<grid, 512>>>(in, out, rows, cols);
  } else {  // the tiles, and a row of seam blocks
    const unsigned columns = (cols + 63u) / 64, rows_of_tiles = (rows + 63u) / 64 + 1;
    const dim3 grid(rows_of_tiles, std::min(columns, 65535u), (columns + 65534u) / 65535u);
    if (cols % 2 == 1 && rows <= 16384)  // line windows, the hint in their loads
      transpose_prefetch<<<grid, 512>>>(in, out, rows, cols);
    else if (cols % 2 == 1 && rows > 32704)  // by bands: a block a tile, a one-dimensional grid
      transpose_bands<<<columns * rows_of_tiles, 512>>>(in, out, rows, cols);
    else if (cols % 2 == 1)  // line windows, which start at the input's first line
      transpose_lines<<<grid, 512>>>(in, out, rows, cols);
    else
      transpose_skewed<<<grid, 512>>>(in, out, rows, cols);
  }
}

// The matrices the launch can cover, and what the usage line says of them.
static bool fits(long long rows, long long cols) {
  return rows % 8 != 0 || cols % 4 != 0 || (rows + 63) / 64 * ((cols + 63) / 64) <= 2147483647;
}
static const char* const kFits =
    "at most 2^31 - 1 tiles of 64 x 64 where ROWS is a multiple of 8 and COLS of 4: the grid "
    "holds at most 2147483647 blocks";

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
