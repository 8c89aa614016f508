/// @file async_copy.cuh
/// @brief Step 11's kernel: step 06's, with a load phase that copies from global to shared
/// memory without passing through registers (cp.async, compute capability 8.0 and newer), and
/// Tall, step 10's tiles twice as tall.
///
/// What changed since step 10: step 10 ran step 06's kernel with new moves; this step keeps
/// the moves and changes the kernel's load phase (load_phase() below: one cp.async a move,
/// then one wait, where step 06 loads into registers and then stores them). Tall is new work
/// for the same kernel.
#pragma once

#include <cstdint>

#include "06-float4/float4.cuh"
#include "09-alignment/alignment.cuh"
#include "kernel.hpp"

namespace step11 {

/// Copies BYTES (4, 8 or 16, aligned to BYTES) from global memory at @p src to shared memory
/// at @p dst with one instruction that keeps no register for the data: cp.async, LDGSTS in the
/// machine code. The copy lands later: wait_all() waits for the calling thread's copies.
/// Before compute capability 8.0 there is no such instruction, and the step's programs do not
/// launch these kernels there (Variant::needs_sm); the code traps if one is launched anyway.
template <int BYTES>
__device__ __forceinline__ void copy_async(void* dst, const void* src) {
  static_assert(BYTES == 4 || BYTES == 8 || BYTES == 16, "cp.async copies 4, 8 or 16 bytes");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  // .ca: the copy passes the L1, which keeps the sector for the block's other warps.
  // The global address is passed as the generic address it is: for global memory the two
  // are the same number.
  const auto to = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(to), "l"(src), "n"(BYTES)
               : "memory");
#else
  (void)dst;
  (void)src;
  __trap();
#endif
}

/// Waits until every copy_async() the calling thread issued has landed in shared memory
/// (LDGDEPBAR, then DEPBAR). The other threads' copies are visible after the barrier that
/// follows, as their stores would be.
__device__ __forceinline__ void wait_all() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\ncp.async.wait_group 0;\n" ::: "memory");
#endif
}

/// Before the barrier: every move of this thread as one cp.async from the input straight into
/// its tile slot (one vector of N elements, whose slots are one aligned piece of a tile row
/// when N > 1), all issued back to back, then one wait. Step 06's load phase loaded each move
/// into a register and stored it to the tile: here no register holds the data, so a thread
/// can keep as many moves in flight as it makes.
template <bool CHECKED, class W, typename T>
__device__ void load_phase(const tt::Thread& me, const T* __restrict__ in, T* tile, int rows,
                           int cols) {
  constexpr int N = W::kVec;
  static_assert(N == 1 || W::kTileStoreVec, "a vector's slots must be one aligned tile piece");
#pragma unroll
  for (int p = 0; p < W::kLoadPasses; ++p) {
    const tt::Move<N> m = W::load(me, p, rows, cols);
    if (!CHECKED || m.inside) copy_async<sizeof(T) * N>(&tile[m.slot_of(0)], in + m.global);
  }
  wait_all();
}

/// A seam block's moves (steps 09 and 10: each group of lanes reads down an input column),
/// each through a register. A cp.async whose warp gathers from many rows writes shared memory
/// in more wavefronts than its slots need, where an STS to the same slots takes one (chapter
/// 11 measures it). These blocks are one row of the grid, with 2 moves a thread at most, made
/// one after the other: holding both in registers first would take the double kernel from 32
/// registers a thread to 38, and every block of the grid from 4 an SM to 3 (the SASS check's
/// table shows the registers).
template <class W, typename T>
__device__ void seam_phase(const tt::Thread& me, const T* __restrict__ in, T* tile, int rows,
                           int cols) {
  if constexpr (tt::has_seam<W>::value) {
#pragma unroll
    for (int p = 0; p < W::kSeamPasses; ++p) {  // a seam move is inside in these passes only
      const auto m = W::load(me, p, rows, cols);
      if (m.inside) tile[m.slot_of(0)] = in[m.global];
    }
  }
}

/// Moves the tiles of work W: step 06's kernel (06-float4/float4.cuh) with the load phase
/// above (seam blocks: seam_phase()); the barrier and the store phase are step 06's.
template <class W>
__global__ void __launch_bounds__(W::kThreads)
    transpose_async(const tt::Elem<W>* __restrict__ in, tt::Elem<W>* __restrict__ out, int rows,
                    int cols) {
  using T = tt::Elem<W>;
  __shared__ alignas(16) T tile[W::kTileElems];
  const tt::Thread me = tt::this_thread();
  const bool whole = W::whole_tile(me, rows, cols);  // the same for every thread of the block

  if (whole)  // the change since step 06's kernel: this step's load phase, above
    step11::load_phase<false, W>(me, in, tile, rows, cols);
  else if (tt::is_seam<W>(me))  // a seam block gathers: through registers, as in step 10
    step11::seam_phase<W>(me, in, tile, rows, cols);
  else
    step11::load_phase<true, W>(me, in, tile, rows, cols);
  __syncthreads();  // every thread's copies have landed (each waited for its own)
  if (whole)
    step06::store_phase<false, W>(me, tile, out, rows, cols);
  else
    step06::store_phase<true, W>(me, tile, out, rows, cols);
}

/// Step 10's skewed tiles, twice as tall: a block writes 128 elements of each of its 64 output
/// rows from the row's first sector boundary on (step 10: 64), so it loads 136 input rows for
/// 128 (step 10: 72 for 64). The 8 rows a block loads beyond its own are the next block's
/// first 8, read again from the L2: 6% of what a block loads instead of 11%. A thread makes 17
/// loads before the barrier and 16 stores after it; with cp.async the 17 loads hold no
/// register. The tile is 136 x 64 elements with step 09's swizzle (column XOR row), 34816
/// bytes in float; in double it would pass the 48 KB a block's static shared memory may have,
/// so this work is float only. Seams and moves are written as step 10's: a base computed once
/// and a constant a pass.
template <typename T>
struct Tall : step09::Skewed<T> {
  using Base = step09::Skewed<T>;
  static constexpr int kTile = 64;                  ///< Output rows a block.
  static constexpr int kOut = 2 * kTile;            ///< Elements a row writes (step 10: 64).
  static constexpr int kRows = kOut + 8;            ///< Input rows a block (step 10: 72).
  static constexpr int kThreads = 512;              ///< Threads a block.
  static constexpr int kStride = kThreads / kTile;  ///< Rows a load pass: 8.
  static constexpr int kLoadPasses = kRows * kTile / kThreads;  ///< 17 elements a thread.
  static constexpr int kStorePasses = kOut * kTile / kThreads;  ///< 16 elements a thread.
  static constexpr int kTileElems = kRows * kTile;              ///< 136 x 64, swizzled.
  static constexpr int kSectorElems = Base::kSectorElems;       ///< Elements a sector.
  static_assert(sizeof(T) == 4, "in double the tile passes 48 KB of static shared memory");
  static_assert(kStride == 8 && kSectorElems <= kStride, "8 output rows are whole sectors");
  static_assert(kSectorElems <= kRows - kOut, "the skew fits in the extra rows");

  /// The main grid (64 input columns by 128 output elements a block) and one row of seam
  /// blocks, step 09's.
  static tt::Launch launch(const tt::Problem& pb) {
    return {dim3(static_cast<unsigned>(tt::ceil_div(pb.shape.cols, kTile)),
                 static_cast<unsigned>(tt::ceil_div(pb.shape.rows, kOut) + 1)),
            dim3(kThreads)};
  }
  /// A main block whose 136 input rows, 64 input columns and output pieces lie inside the
  /// matrix (the pieces end before tail(), which is at least rows - kSectorElems + 1).
  TT_HD static bool whole_tile(const tt::Thread& me, int rows, int cols) {
    return !Base::seam(me) && std::int64_t{me.block.y} * kOut + kRows + kSectorElems <= rows &&
           (std::int64_t{me.block.x} + 1) * kTile <= cols;
  }
  /// Pass p: tile row i0 + 8p (p = 0 .. 16) of column j, t = 64 i0 + j; slot: step 09's,
  /// column XOR row.
  TT_HD static tt::Move<> load(const tt::Thread& me, int pass, int rows, int cols) {
    if (Base::seam(me)) return Base::seam_move(me, pass, true, rows, cols);
    const int t = static_cast<int>(me.thread.x), i0 = t / kTile, j = t % kTile;
    const std::int64_t r0 = std::int64_t{me.block.y} * kOut + i0;  // step 10: * 64
    const std::int64_t c = std::int64_t{me.block.x} * kTile + j;
    const std::int64_t base = r0 * cols + c;  // the same in every pass
    const int i = i0 + kStride * pass;        // tile row
    const int slot = i * kTile + ((j ^ i0) ^ ((kStride * pass) & (kTile - 1)));
    return {r0 + kStride * pass < rows && c < cols, base + std::int64_t{kStride} * pass * cols,
            slot};
  }
  /// Pass p = 8 k + g: output row c0 + 8g (t = 64 u0 + j), its element j + 64 k from the
  /// row's first sector boundary: tile row i = head(c0) + j + 64 k, tile column u0 + 8g.
  TT_HD static tt::Move<> store(const tt::Thread& me, int pass, int rows, int cols) {
    if (Base::seam(me)) return Base::seam_move(me, pass, false, rows, cols);
    const int t = static_cast<int>(me.thread.x), u0 = t / kTile, j = t % kTile;
    const int g = pass % kStride, k = pass / kStride;  // step 10: g = pass, k = 0
    const std::int64_t c0 = std::int64_t{me.block.x} * kTile + u0;
    const int i = step09::head<kSectorElems>(c0, rows) + j + kTile * k;  // head(c0 + 8g)
    const std::int64_t r = std::int64_t{me.block.y} * kOut + i;          // step 10: * 64
    const std::int64_t c = c0 + kStride * g;
    const int slot = i * kTile + ((u0 ^ (i & 7)) | ((kStride * g) ^ (i & 56)));  // (i, u0 + 8g)
    return {c < cols && r < step09::tail<kSectorElems>(c, rows),
            c0 * rows + r + std::int64_t{kStride} * g * rows, slot};
  }
};

}  // namespace step11
