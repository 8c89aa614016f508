/// @file reads.cuh
/// @brief Step 12's work: step 10's skewed tiles, loading only the input rows that some store
/// reads, and tiles twice as wide in float, so that fewer input sectors are read twice.
///
/// What changed since step 10: the load moves (a block's last load pass is cut to the rows
/// its stores read) and the kernel's load phase, which checks that pass even in whole tiles.
/// Wide is new work for the same kernel.
#pragma once

#include <cstdint>
#include <type_traits>

#include "09-alignment/alignment.cuh"
#include "10-invariants/invariants.cuh"
#include "11-async-copy/async_copy.cuh"
#include "kernel.hpp"

namespace step12 {

/// The input rows a skewed block reads: its 64, and as many more as the largest head() of
/// its output rows reaches. Output row c starts at element c x rows, so head(c) is a multiple
/// of g = gcd(rows, S) below S (S: elements a sector), and every multiple of g below S is
/// the head of one of any 8 consecutive output rows: the largest is S - g. A block reads 64 +
/// S - g rows: 71 in float and 67 in double where rows is odd, where step 10 reads 72.
template <int S>
TT_HD inline int rows_read(int tile, int rows) {
  const int g = (rows & -rows) < S ? (rows & -rows) : S;  // gcd(rows, S): S is a power of two
  return tile + S - g;
}

/// Load pass p of work W's main blocks, cut to the rows that a store reads: tile row @p i
/// (the move's, from W's own load()) is read only below rows_read(), for blocks whose output
/// rows get @p out elements each.
template <class W>
TT_HD inline tt::Move<> trim(tt::Move<> m, const tt::Thread& me, int i, int out, int rows) {
  if (!W::seam(me) && i >= rows_read<W::kSectorElems>(out, rows)) m.inside = false;
  return m;
}

/// Step 10's tiles and moves, each block loading only the rows its stores read. The first 8
/// load passes (tile rows 0 to 63, which every block's stores read) are whole in a whole tile
/// (kFullPasses); the last one, tile rows 64 to 71, is cut: in float a block loads 71 rows where
/// step 10 loads 72, in double 67 (a double sector is 4 elements, so no output row of the block
/// starts more than 3 rows into its piece).
template <typename T>
struct Trimmed : step10::Lean<T> {
  using Base = step10::Lean<T>;
  static constexpr int kFullPasses = Base::kTile / Base::kStride;  ///< Rows 0 to 63: whole.
  /// Blocks an SM the registers must allow: step 10's (4 in float, 3 in double).
  static constexpr int kMinBlocks = sizeof(T) == 4 ? 4 : 3;

  /// Step 10's load of pass p, tile row i0 + 8p of column j (t = 64 i0 + j), not made for a
  /// tile row that no store reads (rows_read() and on).
  TT_HD static tt::Move<> load(const tt::Thread& me, int pass, int rows, int cols) {
    const int i = static_cast<int>(me.thread.x) / Base::kTile + Base::kStride * pass;
    return trim<Base>(Base::load(me, pass, rows, cols), me, i, Base::kTile, rows);
  }
};

/// Input columns a block of skewed work W reads: W::kCols where W states it (Wide, 128),
/// else W::kTile (64). Steps 13 and 15 take it from here, whatever the work.
template <class W, class = void>
struct BlockCols {
  static constexpr int value = W::kTile;
};
template <class W>
struct BlockCols<W, std::void_t<decltype(W::kCols)>> {
  static constexpr int value = W::kCols;
};
template <class W>
constexpr int block_cols() {
  return BlockCols<W>::value;
}

/// Step 10's skewed tiles twice as wide: a block reads 128 input columns of its 72 input rows
/// (71 read, as Trimmed) and writes 128 output rows of 64 elements. A row piece of 128
/// floats that starts inside a sector touches 17 sectors for 16 sectors of data, where a
/// piece of 64 touches 9 for 8: half as many sectors that two neighbouring blocks both read.
/// A thread makes 18 loads before the barrier and 16 stores after it, from a 72 x 128 tile
/// swizzled as step 09's (column XOR row: a warp's 32 consecutive columns of a row, or 32
/// consecutive rows of a column, lie in 32 banks). The tile is 36864 bytes in float; in
/// double it would pass the 48 KB a block's static shared memory may have, so this work is
/// float only. The seam blocks are step 09's (512 threads, 128 output rows a block: one seam
/// block for each block of the main grid's columns).
template <typename T>
struct Wide : step09::Skewed<T> {
  using Base = step09::Skewed<T>;
  static constexpr int kTile = Base::kTile;         ///< Elements an output row gets: 64.
  static constexpr int kCols = 2 * kTile;           ///< Input columns a block (step 10: 64).
  static constexpr int kRows = Base::kRows;         ///< Input rows a block: 72.
  static constexpr int kThreads = 512;              ///< Threads a block.
  static constexpr int kStride = kThreads / kCols;  ///< Rows a load pass: 4.
  static constexpr int kLoadPasses = kRows * kCols / kThreads;  ///< 18 elements a thread.
  static constexpr int kFullPasses = kTile / kStride;  ///< Rows 0 to 63: whole in a whole tile.
  static constexpr int kMinBlocks = 3;  ///< Blocks an SM: 3 x 36 KB of tile, 40 registers.
  static constexpr int kOutStride = kThreads / kTile;            ///< Output rows a pass: 8.
  static constexpr int kStorePasses = kCols * kTile / kThreads;  ///< 16 elements a thread.
  static constexpr int kTileElems = kRows * kCols;               ///< 72 x 128, swizzled.
  static constexpr int kSectorElems = Base::kSectorElems;        ///< Elements a sector.
  static_assert(sizeof(T) == 4, "in double the tile passes 48 KB of static shared memory");
  static_assert(kThreads == Base::kThreads, "the seam blocks are step 09's");
  static_assert(kSectorElems <= kOutStride, "8 output rows are whole sectors apart");
  /// The main grid (128 input columns by 64 input rows a block) and one row of seam blocks.
  static tt::Launch launch(const tt::Problem& pb) {
    return {dim3(static_cast<unsigned>(tt::ceil_div(pb.shape.cols, kCols)),
                 static_cast<unsigned>(tt::ceil_div(pb.shape.rows, kTile) + 1)),
            dim3(kThreads)};
  }
  /// Tile slot of tile row @p i and column @p j (0 to 127): column XOR row.
  TT_HD static int slot(int i, int j) { return i * kCols + (j ^ i); }
  /// A main block whose 72 input rows, 128 input columns and output pieces lie inside.
  TT_HD static bool whole_tile(const tt::Thread& me, int rows, int cols) {
    return !Base::seam(me) && std::int64_t{me.block.y} * kTile + kRows + kSectorElems <= rows &&
           (std::int64_t{me.block.x} + 1) * kCols <= cols;
  }
  /// Pass p: tile row i0 + 4p of column j (t = 128 i0 + j), cut to the rows a store reads.
  TT_HD static tt::Move<> load(const tt::Thread& me, int pass, int rows, int cols) {
    if (Base::seam(me)) return Base::seam_move(me, pass, true, rows, cols);
    const int t = static_cast<int>(me.thread.x), i0 = t / kCols, j = t % kCols;
    const std::int64_t r0 = std::int64_t{me.block.y} * kTile + i0,
                       c = std::int64_t{me.block.x} * kCols + j;
    const int i = i0 + kStride * pass;  // tile row
    const tt::Move<> m{r0 + kStride * pass < rows && c < cols,
                       r0 * cols + c + std::int64_t{kStride} * pass * cols, slot(i, j)};
    return trim<Base>(m, me, i, kTile, rows);
  }
  /// Pass p: output row c0 + 8p (t = 64 u0 + j), its j-th element from head(c0), which is
  /// head(c0 + 8p), as step 10's store.
  TT_HD static tt::Move<> store(const tt::Thread& me, int pass, int rows, int cols) {
    if (Base::seam(me)) return Base::seam_move(me, pass, false, rows, cols);
    const int t = static_cast<int>(me.thread.x), u0 = t / kTile, j = t % kTile;
    const std::int64_t c0 = std::int64_t{me.block.x} * kCols + u0;
    const int i = step09::head<kSectorElems>(c0, rows) + j;
    const std::int64_t r = std::int64_t{me.block.y} * kTile + i;
    const std::int64_t c = c0 + kOutStride * pass;
    return {c < cols && r < step09::tail<kSectorElems>(c, rows),
            c0 * rows + r + std::int64_t{kOutStride} * pass * rows,
            slot(i, u0 + kOutStride * pass)};
  }
};

/// Step 11's tall tiles (136 x 64: 128 output elements a row) loaded through registers, cut
/// as Trimmed: a block reads 128 + S - g rows (135 in float where rows is odd). 17 loads a
/// thread; float only, as step 11's.
template <typename T>
struct TallTrimmed : step11::Tall<T> {
  using Base = step11::Tall<T>;
  static constexpr int kFullPasses = Base::kOut / Base::kStride;  ///< Rows 0 to 127: whole.
  static constexpr int kMinBlocks = 2;  ///< Blocks an SM the registers must allow (3 spill).

  /// Step 11's load of pass p, tile row i0 + 8p of column j, not made for a tile row that no
  /// store reads (rows_read() and on).
  TT_HD static tt::Move<> load(const tt::Thread& me, int pass, int rows, int cols) {
    const int i = static_cast<int>(me.thread.x) / Base::kTile + Base::kStride * pass;
    return trim<Base>(Base::load(me, pass, rows, cols), me, i, Base::kOut, rows);
  }
};

/// Before the barrier: step 06's load phase (every load into a register, then into the
/// tile), except that in a whole tile only the first W::kFullPasses passes (tile rows 0 to
/// 63) go unchecked: the passes after them are cut to the rows a store reads (their moves
/// say which).
template <bool CHECKED, class W, typename T>
__device__ void load_phase(const tt::Thread& me, const T* __restrict__ in, T* tile, int rows,
                           int cols) {
  T v[W::kLoadPasses];
#pragma unroll
  for (int p = 0; p < W::kLoadPasses; ++p) {
    const tt::Move<> m = W::load(me, p, rows, cols);
    if ((!CHECKED && p < W::kFullPasses) || m.inside) v[p] = in[m.global];
  }
#pragma unroll
  for (int p = 0; p < W::kLoadPasses; ++p) {
    const tt::Move<> m = W::load(me, p, rows, cols);
    if ((!CHECKED && p < W::kFullPasses) || m.inside) tile[m.slot] = v[p];
  }
}

/// Moves the tiles of work W: step 06's kernel (06-float4/float4.cuh) with the load phase
/// above; the barrier and the store phase are step 06's.
template <class W>
__global__ void __launch_bounds__(W::kThreads, tt::min_blocks(W::kMinBlocks, W::kThreads))
    transpose_trimmed(const tt::Elem<W>* __restrict__ in, tt::Elem<W>* __restrict__ out, int rows,
                      int cols) {
  using T = tt::Elem<W>;
  __shared__ alignas(16) T tile[W::kTileElems];
  const tt::Thread me = tt::this_thread();
  const bool whole = W::whole_tile(me, rows, cols);  // the same for every thread of the block

  if (whole)  // the change since step 06's kernel: the last pass is checked here too
    step12::load_phase<false, W>(me, in, tile, rows, cols);
  else
    step12::load_phase<true, W>(me, in, tile, rows, cols);
  __syncthreads();
  if (whole)
    step06::store_phase<false, W>(me, tile, out, rows, cols);
  else
    step06::store_phase<true, W>(me, tile, out, rows, cols);
}

}  // namespace step12
