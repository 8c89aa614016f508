/// @file swizzle.cuh
/// @brief Step 07's work: the XOR swizzle, and the moves of a dense, swizzled TILE x TILE tile
/// (step 08 takes the same moves in another block order).
#pragma once

#include "07-swizzle/swizzle.hpp"
#include "kernel.hpp"
#include "tiled.hpp"

namespace step07 {

using tt::Coord;

/// Shared-memory slot of tile element (@p r, @p c) in a dense TILE-wide tile whose rows are
/// swizzled in chunks of N elements, rows taken in groups of N (N = 1: column XOR row).
template <int TILE, int N>
TT_HD constexpr int tile_slot(int r, int c) {
  return r * TILE + swizzle(r, c, TILE, N, N);
}

/// Where the tile of block @p me starts in the input: (row, column).
template <int TILE>
TT_HD inline Coord tile_origin(const tt::Thread& me) {
  return {static_cast<int>(me.block.y) * TILE, static_cast<int>(me.block.x) * TILE};
}

/// The 16-byte path: a TILE x TILE tile of T moved by THREADS threads (a 1D block), one
/// vector of V = 16 / sizeof(T) elements a move.
///
/// Loads: thread t takes vector t % kVectorsPerRow of tile row t / kVectorsPerRow, so a warp
/// reads whole row segments (32 / kVectorsPerRow rows). Stores: a warp gathers 8 vectors down
/// 4 neighbouring tile columns; the 8 vectors are 8 different row groups, which the swizzle
/// puts in 8 different bank groups.
template <typename T, int TILE, int THREADS>
struct Swizzled : tt::Work<T> {
  static constexpr int kTile = TILE;                          ///< Tile side, elements.
  static constexpr int kVec = tt::kVec16<T>;                  ///< Elements a vector.
  static constexpr int kThreads = THREADS;                    ///< Threads a block.
  static constexpr int kVectorsPerRow = TILE / kVec;          ///< Vectors a tile row.
  static constexpr int kLoadRows = THREADS / kVectorsPerRow;  ///< Tile rows a load pass.
  static constexpr int kLoadPasses = TILE / kLoadRows;        ///< Load passes.
  static constexpr int kWarpsPerGroup = kVectorsPerRow / 8;   ///< Warps per 4 columns.
  static constexpr int kStoreCols = 4 * (THREADS / 32) / kWarpsPerGroup;  ///< Columns a pass.
  static constexpr int kStorePasses = TILE / kStoreCols;                  ///< Store passes.
  static constexpr int kTileElems = TILE * TILE;                          ///< Dense: no padding.
  static constexpr bool kTileStoreVec = true;  ///< A swizzled row keeps each vector whole.
  static_assert(kVectorsPerRow % 8 == 0, "a tile row must hold a multiple of 8 vectors");
  static_assert(THREADS % kVectorsPerRow == 0 && TILE % kLoadRows == 0, "load passes");
  static_assert(TILE % kStoreCols == 0 && THREADS % 32 == 0, "store passes");

  static tt::Launch launch(const tt::Problem& pb) { return tt::tile_grid(pb, TILE, dim3(THREADS)); }
  /// Whether the block's whole tile lies inside the matrix, so that no move needs a check.
  TT_HD static bool whole_tile(const tt::Thread& me, int rows, int cols) {
    return tt::whole_tile(me.block, TILE, rows, cols);
  }
  /// Pass p: the vector at tile row p kLoadRows + t / kVectorsPerRow, column (t mod
  /// kVectorsPerRow) V.
  TT_HD static tt::Move<kVec> load(const tt::Thread& me, int pass, int rows, int cols) {
    const int t = me.thread.x;
    const Coord s{pass * kLoadRows + t / kVectorsPerRow, (t % kVectorsPerRow) * kVec};
    const Coord o = tile_origin<TILE>(me), src{o.row + s.row, o.col + s.col};
    tt::Move<kVec> m{tt::inside(src, rows, cols), tt::offset(src.row, src.col, cols), {}};
    for (int k = 0; k < kVec; ++k) m.slot[k] = tile_slot<TILE, kVec>(s.row, s.col + k);
    return m;
  }
  /// Pass p: the vector at row s.row (a tile column) and columns s.col .. s.col + V - 1 (tile
  /// rows) of the output's tile.
  TT_HD static tt::Move<kVec> store(const tt::Thread& me, int pass, int rows, int cols) {
    const int lane = me.thread.x % 32, warp = me.thread.x / 32;
    const Coord s{lane / 8 + 4 * (warp / kWarpsPerGroup) + pass * kStoreCols,
                  (lane % 8 + 8 * (warp % kWarpsPerGroup)) * kVec};
    const Coord o = tile_origin<TILE>(me), dst{o.col + s.row, o.row + s.col};
    tt::Move<kVec> m{tt::inside(dst, cols, rows), tt::offset(dst.row, dst.col, rows), {}};
    for (int k = 0; k < kVec; ++k) m.slot[k] = tile_slot<TILE, kVec>(s.col + k, s.row);
    return m;
  }
};

/// The scalar path (rows that are not a multiple of the vector, or pointers that are not
/// 16-byte aligned): the same tile, one element a move, with the simple swizzle (column XOR
/// row). A warp covers 32 consecutive elements of one row; a pass covers THREADS / 32 rows of
/// one 32-column strip of the tile, and the passes finish one strip before the next.
template <typename T, int TILE, int THREADS>
struct SwizzledScalar : tt::Work<T> {
  static constexpr int kTile = TILE;
  static constexpr int kThreads = THREADS;
  static constexpr int kRowsPerPass = THREADS / 32, kPassesPerStrip = TILE / kRowsPerPass;
  static constexpr int kLoadPasses = TILE * TILE / THREADS, kStorePasses = kLoadPasses;
  static constexpr int kTileElems = TILE * TILE;
  static_assert(TILE % 32 == 0 && TILE % kRowsPerPass == 0, "scalar passes");

  static tt::Launch launch(const tt::Problem& pb) { return tt::tile_grid(pb, TILE, dim3(THREADS)); }
  /// Whether the block's whole tile lies inside the matrix, so that no move needs a check.
  TT_HD static bool whole_tile(const tt::Thread& me, int rows, int cols) {
    return tt::whole_tile(me.block, TILE, rows, cols);
  }
  /// The element thread @p t handles in pass @p pass, as (row, column) of the tile on the way
  /// in and of the output's tile on the way out.
  TT_HD static Coord element(int t, int pass) {
    return {(pass % kPassesPerStrip) * kRowsPerPass + t / 32,
            (pass / kPassesPerStrip) * 32 + t % 32};
  }
  TT_HD static tt::Move<> load(const tt::Thread& me, int pass, int rows, int cols) {
    const Coord s = element(me.thread.x, pass);
    const Coord o = tile_origin<TILE>(me), src{o.row + s.row, o.col + s.col};
    return {tt::inside(src, rows, cols), tt::offset(src.row, src.col, cols),
            tile_slot<TILE, 1>(s.row, s.col)};
  }
  TT_HD static tt::Move<> store(const tt::Thread& me, int pass, int rows, int cols) {
    const Coord s = element(me.thread.x, pass);
    const Coord o = tile_origin<TILE>(me), dst{o.col + s.row, o.row + s.col};
    return {tt::inside(dst, cols, rows), tt::offset(dst.row, dst.col, rows),
            tile_slot<TILE, 1>(s.col, s.row)};
  }
};

}  // namespace step07
