/// @file swizzle.hpp
/// @brief Step 07: the XOR swizzle, and the index functions of the swizzled kernel (step 08
/// reuses them).
#pragma once

#include <cstdint>

#include "step.hpp"
#include "types.hpp"

/// Step 07: a dense, swizzled tile instead of a padded one.
namespace step07 {

/// Column at which tile element (@p r, @p c) is stored in a dense row of @p width elements.
///
/// The row is cut into chunks of @p chunk elements. Chunk q = c / chunk moves to chunk
/// q ^ ((r / group) mod (width / chunk)); inside a chunk the order is kept, so a chunk of
/// 16 bytes stays 16 contiguous, aligned bytes and can be read or written with one 16-byte
/// instruction. For a fixed row, q -> q ^ k is a permutation of 0 .. width / chunk - 1 when
/// width / chunk is a power of two (XOR with a constant is its own inverse and never leaves
/// the range), so the mapping is one-to-one on every row: nothing is lost, no space wasted.
///
/// - chunk = 1, group = 1: the simple form, c ^ (r mod width) ("column XOR row").
/// - group = 1: the chunked form in Lei Mao's "CUDA Shared Memory Swizzling": chunk index XOR
///   row index.
/// - group = chunk: rows are taken in groups of @p chunk. This is the form a float4
///   transpose needs: a thread gathers 4 consecutive rows of one column, so the rows that a
///   warp reads at once differ in r / 4, not in r mod 8.
TT_HD constexpr int swizzle(int r, int c, int width, int chunk, int group) {
  const int chunks = width / chunk;
  return ((c / chunk) ^ ((r / group) % chunks)) * chunk + c % chunk;
}

/// The shape of the work: a TILE x TILE tile of T moved by THREADS threads (a 1D block).
///
/// 16-byte path. Loads: thread t takes vector t % kVectorsPerRow of tile row
/// t / kVectorsPerRow, so a warp reads whole row segments (32 / kVectorsPerRow rows).
/// Stores: a warp gathers 8 vectors down 4 neighbouring tile columns; the 8 vectors are 8
/// different row groups, which the swizzle puts in 8 different bank groups.
template <typename T, int TILE, int THREADS>
struct Geometry {
  static constexpr int kTile = TILE;                          ///< Tile side, elements.
  static constexpr int kThreads = THREADS;                    ///< Threads a block.
  static constexpr int kV = tt::Pack<T>::size;                ///< Elements a vector.
  static constexpr int kVectorsPerRow = TILE / kV;            ///< Vectors a tile row.
  static constexpr int kLoadRows = THREADS / kVectorsPerRow;  ///< Tile rows a load pass.
  static constexpr int kLoadPasses = TILE / kLoadRows;        ///< Load passes.
  static constexpr int kWarpsPerGroup = kVectorsPerRow / 8;   ///< Warps per 4 columns.
  static constexpr int kStoreCols = 4 * (THREADS / 32) / kWarpsPerGroup;  ///< Columns a pass.
  static constexpr int kStorePasses = TILE / kStoreCols;                  ///< Store passes.
  static constexpr int kScalarPasses = TILE * TILE / THREADS;             ///< Scalar path passes.
  static_assert(kVectorsPerRow % 8 == 0, "a tile row must hold a multiple of 8 vectors");
  static_assert(THREADS % kVectorsPerRow == 0 && TILE % kLoadRows == 0, "load passes");
  static_assert(TILE % kStoreCols == 0 && THREADS % 32 == 0, "store passes");
  static_assert(TILE % 32 == 0 && TILE % (THREADS / 32) == 0, "scalar passes");
};

/// Shared-memory slot of tile element (@p r, @p c) on the 16-byte path: dense rows, chunks
/// of one vector swizzled by groups of one vector's worth of rows.
template <class G>
TT_HD constexpr int tile_index(int r, int c) {
  return r * G::kTile + swizzle(r, c, G::kTile, G::kV, G::kV);
}

/// Shared-memory slot of tile element (@p r, @p c) on the scalar path: the simple form.
template <class G>
TT_HD constexpr int tile_index_scalar(int r, int c) {
  return r * G::kTile + swizzle(r, c, G::kTile, 1, 1);
}

/// 16-byte path, load phase: the tile row and first column of the vector that thread @p t
/// loads in pass @p pass.
template <class G>
TT_HD constexpr tt::Coord load_slot(int t, int pass) {
  return {pass * G::kLoadRows + t / G::kVectorsPerRow, (t % G::kVectorsPerRow) * G::kV};
}

/// 16-byte path, store phase: the position in the output tile of the vector that thread
/// @p t stores in pass @p pass. Its row is a tile column; its V elements are tile rows
/// col .. col + V - 1 of that column.
template <class G>
TT_HD constexpr tt::Coord store_slot(int t, int pass) {
  const int lane = t % 32, warp = t / 32;
  return {lane / 8 + 4 * (warp / G::kWarpsPerGroup) + pass * G::kStoreCols,
          (lane % 8 + 8 * (warp % G::kWarpsPerGroup)) * G::kV};
}

/// Scalar path: the element that thread @p t handles in pass @p pass, as (row, column) of
/// the tile on the way in and of the output tile on the way out. A warp covers 32
/// consecutive elements of one row; a pass covers kThreads / 32 rows of one 32-column strip
/// of the tile, and the passes finish one strip before they start the next.
template <class G>
TT_HD constexpr tt::Coord scalar_slot(int t, int pass) {
  constexpr int rows_per_pass = G::kThreads / 32, passes_per_strip = G::kTile / rows_per_pass;
  return {(pass % passes_per_strip) * rows_per_pass + t / 32,
          (pass / passes_per_strip) * 32 + t % 32};
}

/// The 16-byte path needs both pointers aligned to 16 bytes and both row lengths a multiple
/// of the vector.
template <typename T>
bool vector_ok(const T* in, const T* out, tt::Shape s) {
  constexpr int V = tt::Pack<T>::size;
  return reinterpret_cast<std::uintptr_t>(in) % 16 == 0 &&
         reinterpret_cast<std::uintptr_t>(out) % 16 == 0 && s.cols % V == 0 && s.rows % V == 0;
}

/// The step's description.
const tt::Step& step();

}  // namespace step07
