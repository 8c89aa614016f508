/// @file alignment.cuh
/// @brief Step 09's work: tiles placed by the addresses of the output, so that every 32-byte
/// sector of the output is written whole, by one block, for any rows x cols.
#pragma once

#include <cstdint>

#include "07-swizzle/swizzle.cuh"
#include "08-diagonal/diagonal.cuh"
#include "kernel.hpp"
#include "tiled.hpp"

namespace step09 {

/// Elements of T in one 32-byte sector.
template <typename T>
constexpr int kSector = static_cast<int>(32 / sizeof(T));

/// Where the first sector boundary of output row @p c lies in that row: the elements of the
/// row before it belong to a sector that the previous row starts (0 when the row starts on a
/// boundary). Output row c starts at element c * len of the output (len = the input's rows).
template <int S>
TT_HD inline int head(std::int64_t c, int len) {
  return static_cast<int>(-(c * len) & (S - 1));  // S is a power of two
}

/// Where the last whole sector of output row @p c ends in that row: the elements from there on
/// belong to a sector that the next row (or the end of the matrix) finishes (len when the row
/// ends on a boundary).
template <int S>
TT_HD inline int tail(std::int64_t c, int len) {
  return len - static_cast<int>((c + 1) * len & (S - 1));
}

/// The skewed tiling. Output row c (input column c) has its sector boundaries at
/// head(c) + multiples of 8 floats or 4 doubles; a block of the main grid writes, for each of
/// its 64 output rows, the 64 elements from head(c) + 64 blockIdx.y on: whole sectors only, as a
/// warp writes 32 consecutive elements from a boundary. Because head(c) differs from row to
/// row (by up to a sector less one element), the block loads kRows = 72 input rows, its 64
/// and the skew, into a swizzled tile. What lies before head(c) and from tail(c) on (the
/// sectors that two output rows share, and the matrix's last sector) is written by the last
/// row of blocks, the seam blocks: each group of kSector lanes writes one such sector whole.
template <typename T>
struct Skewed : tt::Work<T> {
  static constexpr int kTile = 64;                                    ///< Output rows a block.
  static constexpr int kSectorElems = kSector<T>;                     ///< Elements a sector.
  static constexpr int kRows = kTile + 8;                             ///< Input rows a block.
  static constexpr int kThreads = 512;                                ///< Threads a block.
  static constexpr int kLoadPasses = kRows * kTile / kThreads;        ///< 9 elements a thread.
  static constexpr int kStorePasses = kTile * kTile / kThreads;       ///< 8 elements a thread.
  static constexpr int kTileElems = kRows * kTile;                    ///< 72 x 64, swizzled.
  static constexpr int kSeamPasses = 2;                               ///< Seam sectors a group.
  static constexpr int kSeamsPerPass = kThreads / kSectorElems;       ///< Seam sectors a pass.
  static constexpr int kSeamsPerBlock = kSeamsPerPass * kSeamPasses;  ///< Seam sectors a block.
  static_assert(kSectorElems <= kRows - kTile, "the skew fits in the extra rows");
  static_assert((kSectorElems & (kSectorElems - 1)) == 0, "a sector: a power of two elements");
  static_assert(kSeamPasses <= kStorePasses && kSeamPasses * kThreads <= kTileElems, "seams");

  /// The main grid (64 input columns by 64 input rows a block) and one row of seam blocks.
  static tt::Launch launch(const tt::Problem& pb) {
    return {dim3(static_cast<unsigned>(tt::ceil_div(pb.shape.cols, kTile)),
                 static_cast<unsigned>(tt::ceil_div(pb.shape.rows, kTile) + 1)),
            dim3(kThreads)};
  }
  /// Tile slot of tile row @p i (input row) and column @p j (input column): column XOR row.
  TT_HD static int slot(int i, int j) { return i * kTile + (j ^ (i & (kTile - 1))); }
  /// Whether block @p me is a seam block (the last row of the grid).
  TT_HD static bool seam(const tt::Thread& me) { return me.block.y + 1 == me.grid_dim.y; }
  /// Whether no move of the block needs a check: a main block whose 72 input rows, 64 input
  /// columns and skewed output pieces all lie inside the matrix.
  TT_HD static bool whole_tile(const tt::Thread& me, int rows, int cols) {
    return !seam(me) && std::int64_t{me.block.y} * kTile + kRows + kSectorElems <= rows &&
           (std::int64_t{me.block.x} + 1) * kTile <= cols;
  }

  /// A seam move, the same on the way in and out: pass p, lane group g = t / kSectorElems
  /// takes output row c = (its block's first) + p kSeamsPerPass + g, and the sector q in
  /// which that row starts; lane k of the group moves element f = q kSectorElems + k of the
  /// output. The group takes q only if no earlier row starts in q (each sector has one
  /// owner) and if q is not one that a main block writes: q holds the end of row c - 1, or
  /// the start of row c + 1, or the matrix ends inside it. Sectors are a power of two
  /// elements, and every row in q starts at c rows or later, so no 64-bit division is needed.
  TT_HD static tt::Move<> seam_move(const tt::Thread& me, int pass, bool load, int rows, int cols) {
    constexpr int S = kSectorElems;
    const int t = static_cast<int>(me.thread.x);
    const std::int64_t c = std::int64_t{me.block.x} * kSeamsPerBlock + pass * kSeamsPerPass + t / S;
    const std::int64_t total = std::int64_t{rows} * cols, start = c * rows, q = start / S;
    const bool owner = c <= cols && q * S < total && (c == 0 || (start - rows) / S != q);
    const bool shared = start != q * S || start + rows < q * S + S || q * S + S > total;
    const std::int64_t f = q * S + t % S;  // the element of the output this lane moves
    // f's output row and its place in that row: row c - 1, or row c + (f - start) / rows.
    const std::int64_t row = f < start ? c - 1 : c + static_cast<int>(f - start) / rows;
    const std::int64_t r = f - row * rows;
    const bool inside = pass < kSeamPasses && owner && shared && f < total;
    return {inside, load ? r * cols + row : f, pass * kThreads + t};  // in(r, row), out[f]
  }

  /// Pass p: element p kThreads + t of the block's 72 x 64 input tile, row by row (a warp
  /// reads 32 consecutive elements of an input row).
  TT_HD static tt::Move<> load(const tt::Thread& me, int pass, int rows, int cols) {
    if (seam(me)) return seam_move(me, pass, true, rows, cols);
    const int e = pass * kThreads + static_cast<int>(me.thread.x), i = e / kTile, j = e % kTile;
    const tt::Coord src{static_cast<int>(me.block.y) * kTile + i,
                        static_cast<int>(me.block.x) * kTile + j};
    return {tt::inside(src, rows, cols), tt::offset(src.row, src.col, cols), slot(i, j)};
  }
  /// Pass p: output row u = e / 64 of the block (e = p kThreads + t), its j-th element from
  /// the row's first sector boundary in this block's piece: tile row head(c) + j, column u. A
  /// warp writes 32 consecutive elements from a boundary: 4 whole float sectors (8 double).
  TT_HD static tt::Move<> store(const tt::Thread& me, int pass, int rows, int cols) {
    if (seam(me)) return seam_move(me, pass, false, rows, cols);
    const int e = pass * kThreads + static_cast<int>(me.thread.x), u = e / kTile, j = e % kTile;
    const std::int64_t c = std::int64_t{me.block.x} * kTile + u;
    const int i = head<kSectorElems>(c, rows) + j;
    const std::int64_t r = std::int64_t{me.block.y} * kTile + i;
    const bool inside = c < cols && r < tail<kSectorElems>(c, rows);
    return {inside, c * rows + r, slot(i, u)};
  }
};

/// Work W restricted to the shapes whose output rows are whole sectors (rows a multiple of
/// kSector) and whose input rows are whole vectors, and to 32-byte aligned pointers: there
/// every tile piece of W's output already starts and ends on a sector boundary.
template <class W>
struct WholeSectors : W {
  /// Output rows of whole sectors, input rows of whole vectors.
  static bool fits(const tt::Shape& s) {
    return s.rows % kSector<tt::Elem<W>> == 0 && s.cols % W::kVec == 0;
  }
  static constexpr std::uintptr_t kPointerAlign = 32;  ///< Sector-aligned output.
};

/// Step 08's column-order tile64 (16-byte path), restricted to the shapes whose output rows are
/// whole sectors: where those are, steps 09 and 10 run it unchanged.
template <typename T>
using Column = WholeSectors<step08::Ordered<step07::Swizzled<T, 64, 512>, step08::ColumnOrder>>;

}  // namespace step09
