// Step 14 in plain CUDA: where rows are whole 16-byte chunks and output rows whole sectors,
// the tensor memory accelerator (TMA), Hopper's copy engine, fills each block's tile
// (14-tma's headline variant, tma), in float; elsewhere step 13's kernels, unchanged. No
// thread loads the input: one thread of a block hands the engine the block's 64 x 64 tile as
// two boxes of 64 rows x 32 floats (128 bytes a row), and the whole block waits on one
// shared-memory barrier (mbarrier) that the copies complete. The engine writes each box with
// its 128-byte swizzle, so the stores' column reads meet 32 different banks. The engine reads
// the matrix through a tensor map, which the host makes once for each matrix with the
// driver's cuTensorMapEncodeTiled, looked up through the runtime (no -lcuda).
//
// No course code: build it alone with
//   nvcc -O3 -arch=sm_90 plain.cu -o 14-tma-plain
// and run `14-tma-plain [ROWS COLS]` (default 8192 8192). It checks the output bit for bit
// against a CPU transpose, after the first launch and after the timed ones, and reports the
// median of 50 launches timed with CUDA events.
// Exit status: 0 exact, 1 wrong, 2 bad input, 3 no CUDA device, 4 a CUDA error, 6 a GPU of
// compute capability below 9.0 (no copy engine).
//
// scripts/plain_check.py compares each kernel's memory instructions with the step's kernel
// at a shape where the step runs it:
// plain_check: transpose_tma 8192x8192
// plain_check: transpose_lines 4099x8191
// plain_check: transpose_skewed 4099x8190
#include <cuda.h>  // CUtensorMap, the type of a tensor map
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

// The copy engine's instructions, from compute capability 9.0 (for an older architecture
// they compile to a trap; launch() stops first, exit status 6). A shared-memory address is 32
// bits.
__device__ __forceinline__ unsigned shared(const void* p) {
  return unsigned(__cvta_generic_to_shared(p));
}
// Sets up barrier bar for one arrival a phase.
__device__ __forceinline__ void barrier_init(uint64_t* bar) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(shared(bar)));
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
#else
  (void)bar;
  __trap();
#endif
}
// Arrives on bar: its phase completes when `bytes` more have landed.
__device__ __forceinline__ void barrier_expect(uint64_t* bar, unsigned bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(shared(bar)),
               "r"(bytes)
               : "memory");
#else
  (void)bar, (void)bytes;
  __trap();
#endif
}
// Waits until the barrier's first phase has completed.
__device__ __forceinline__ void barrier_wait(uint64_t* bar) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile(
      "{\n"
      "  .reg .pred done;\n"
      "wait:\n"
      "  mbarrier.try_wait.parity.shared::cta.b64 done, [%0], 0;\n"
      "  @!done bra wait;\n"
      "}" ::"r"(shared(bar))
      : "memory");
#else
  (void)bar;
  __trap();
#endif
}
// Copies the box of the map whose first element is (row, col) to dst, completing on bar.
// Elements outside the matrix arrive as zeros; the box's bytes count in full either way.
__device__ __forceinline__ void load_box(float* dst, const CUtensorMap* map, int col, int row,
                                         uint64_t* bar) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3}], [%4];" ::"r"(shared(dst)),
      "l"(map), "r"(col), "r"(row), "r"(shared(bar))
      : "memory");
#else
  (void)dst, (void)map, (void)col, (void)row, (void)bar;
  __trap();
#endif
}

// Where tile element (r, c) lies: in box c / 32 (2048 floats, 8 KB), whose row r is 128 bytes,
// its 16-byte chunk j at chunk j XOR (r mod 8): the engine's 128-byte swizzle.
__device__ __forceinline__ int slot(int r, int c) {
  return c / 32 * 2048 + r * 32 + ((c % 32 / 4) ^ (r % 8)) * 4 + c % 4;
}

// Where rows are whole 16-byte chunks and output rows whole sectors: each block of 256 threads
// moves one 64 x 64 tile, block (x, y) tile (y, x), on a grid of 64 x 64 tiles. Thread 0 asks
// the engine for the tile's two boxes (the second only where it starts inside the matrix);
// every thread waits on the barrier. Stores: pass p of lane l of warp w writes tile row
// 8 (p mod 8) + l mod 8 of tile column 8 w + 4 (p / 8) + l / 8, so that 8 lanes write 8
// consecutive elements of one output row, a whole sector: step 08's column stores, one
// element an instruction.
__global__ void __launch_bounds__(256) transpose_tma(const __grid_constant__ CUtensorMap map,
                                                     float* __restrict__ out, int rows, int cols) {
  __shared__ alignas(1024) float tile[64 * 64];  // a swizzled box starts on 1024 bytes
  __shared__ alignas(8) uint64_t copied;         // completes when every box has landed
  const int t = threadIdx.x, lane = t % 32, warp = t / 32;
  const int r0 = blockIdx.y * 64, c0 = blockIdx.x * 64;  // the tile's first row, column
  if (t == 0) barrier_init(&copied);
  __syncthreads();
  if (t == 0) {  // the change: one thread asks the copy engine for the tile
    const bool second = c0 + 32 < cols;
    barrier_expect(&copied, (second ? 2 : 1) * 32 * 64 * sizeof(float));
    load_box(&tile[0], &map, c0, r0, &copied);
    if (second) load_box(&tile[2048], &map, c0 + 32, r0, &copied);
  }
  barrier_wait(&copied);
  const bool whole = r0 + 63 < rows && c0 + 63 < cols;  // the same for the whole block
#pragma unroll
  for (int p = 0; p < 16; ++p) {
    const int r = 8 * (p % 8) + lane % 8, c = 8 * warp + 4 * (p / 8) + lane / 8;
    if (whole || (r0 + r < rows && c0 + c < cols))
      out[int64_t(c0 + c) * rows + r0 + r] = tile[slot(r, c)];
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
// whose last row is the seam blocks'. The GPU starts a grid's blocks x first (in practice): the
// blocks that run together take a band of rows of tiles across every column.
struct Tile {
  int x, y;
  bool seam;
};
__device__ __forceinline__ Tile tile_of() {
  return {int(blockIdx.x), int(blockIdx.y), blockIdx.y + 1 == gridDim.y};
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
__global__ void __launch_bounds__(512)
    transpose_lines(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  __shared__ alignas(16) float tile[72 * 96];
  const Tile b = tile_of();
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
      v[k] = *reinterpret_cast<const float4*>(&in[int64_t(r0 + i) * cols + c0 - o + 4 * q]);
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

// The copy engine needs compute capability 9.0. The first launch asks the device; on an older
// one the program says so and stops, exit status 6, before any kernel runs.
static void needs_compute_capability_9() {
  int device = 0;
  cudaDeviceProp prop;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  if (prop.major < 9) {
    std::fprintf(stderr,
                 "14-tma-plain: needs a GPU of compute capability 9.0 or newer (the tensor "
                 "memory accelerator); %s is %d.%d: not run\n",
                 prop.name, prop.major, prop.minor);
    std::exit(6);
  }
}

// The tensor map of a rows x cols matrix of floats at in: boxes of 64 rows x 32 columns, each
// written into shared memory with the 128-byte swizzle. cuTensorMapEncodeTiled is the
// driver's; the runtime finds it, so the program needs no -lcuda.
static CUtensorMap tensor_map(const float* in, int rows, int cols) {
  using Encode =
      CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                   const cuuint64_t*, const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave,
                   CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found{};
  CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000,
                                              cudaEnableDefault, &found));
  const cuuint64_t dims[2] = {cuuint64_t(cols), cuuint64_t(rows)};  // the fastest side first
  const cuuint64_t pitch[1] = {cuuint64_t(cols) * sizeof(float)};   // a row's bytes
  const cuuint32_t box[2] = {32, 64}, step[2] = {1, 1};
  CUtensorMap map;
  if (found != cudaDriverEntryPointSuccess ||
      reinterpret_cast<Encode>(fn)(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, const_cast<float*>(in),
                                   dims, pitch, box, step, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                   CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                                   CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS) {
    std::fprintf(stderr, "14-tma-plain: the driver made no tensor map\n");
    std::exit(4);
  }
  return map;
}

static void launch(const float* in, float* out, int rows, int cols) {
  static const bool checked = (needs_compute_capability_9(), true);  // once, at the first launch
  (void)checked;
  if (rows % 8 == 0 && cols % 4 == 0) {  // cudaMalloc's pointers are 256-byte aligned
    static CUtensorMap map;              // made once for each matrix, not in the timed launches
    static const float* mapped = nullptr;
    static int mapped_rows = 0, mapped_cols = 0;
    if (in != mapped || rows != mapped_rows || cols != mapped_cols) {
      map = tensor_map(in, rows, cols);
      mapped = in, mapped_rows = rows, mapped_cols = cols;
    }
    const dim3 grid((cols + 63u) / 64, (rows + 63u) / 64);  // a block a tile
    transpose_tma<<<grid, 256>>>(map, out, rows, cols);
  } else {  // the tiles, and a row of seam blocks
    const dim3 grid((cols + 63u) / 64, (rows + 63u) / 64 + 1);
    if (cols % 2 == 1)  // line windows, which start at the input's first line
      transpose_lines<<<grid, 512>>>(in, out, rows, cols);
    else
      transpose_skewed<<<grid, 512>>>(in, out, rows, cols);
  }
}

// The matrices the launch can cover, and what the usage line says of them.
static bool fits(long long rows, long long cols) {
  if (rows % 8 == 0 && cols % 4 == 0) return (rows + 63) / 64 <= 65535;
  return (rows + 63) / 64 + 1 <= 65535;
}
static const char* const kFits =
    "ROWS at most 4194240 where ROWS is a multiple of 8 and COLS of 4, else at most 4194176: "
    "the grid holds at most 65535 blocks along y";

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
