/// @file tma.cuh
/// @brief Step 14's work: a tile that the tensor memory accelerator (TMA) copies into shared
/// memory, a box at a time, with its 128-byte swizzle; the threads only read it out.
///
/// What changed since the earlier steps: no thread loads the input. One thread asks the copy
/// engine for the block's 64 x 64 tile, as boxes of 64 rows x 128 bytes (2 boxes of 32 floats
/// or 4 of 16 doubles), and every thread waits on a shared-memory barrier (mbarrier) that the
/// copies complete. The stores are step 08's column order, one element a thread, each warp
/// reading 8 tile rows x 4 tile columns: the 128-byte swizzle puts those 32 floats in 32
/// different banks (32 doubles in two wavefronts, the fewest 256 bytes need), as chapter 07's
/// swizzle does for its own reads.
#pragma once

#include <cstddef>
#include <cstdint>

#include "06-float4/float4.cuh"
#include "kernel.hpp"
#include "tensor_copy.cuh"
#include "tiled.hpp"

namespace step14 {

/// One box of a block's tile: its first element in the matrix, and where it lands.
struct Box {
  bool inside;  ///< Whether the box has an element inside the matrix (else it is not copied).
  int row;      ///< Matrix row of its first element.
  int col;      ///< Matrix column of its first element.
  int slot;     ///< Tile slot of its first element (a multiple of 1024 bytes).
};

/// A 64 x 64 tile copied in by the tensor memory accelerator, read out in step 08's columns.
///
/// Tile element (r, c) lies in box b = c / kBoxCols at tt::swizzle128(r, c mod kBoxCols): the
/// box's row r is 128 bytes, its 16-byte chunk j at chunk j XOR (r mod 8). The emulation and
/// the analyser take the copy as 16-byte chunk moves (wide_load(): chunk by chunk, as if
/// threads moved them; the copy engine moves them a box at a time), so each element is placed
/// where the hardware places it, and the stores are checked against that placement.
///
/// With @p SWIZZLE false (variant `tma-plain`) the engine writes each box dense, row after
/// row, as a padless tile would be: the stores' column reads then meet the conflicts of
/// chapter 04's unpadded tile, which the swizzle is there to remove.
template <typename T, bool SWIZZLE>
struct TmaBoxes : tt::Work<T> {
  static constexpr bool kSwizzle = SWIZZLE;  ///< The 128-byte swizzle, or a dense box.
  static constexpr int kTile = 64;           ///< Tile side.
  static constexpr int kThreads = 256;       ///< Threads a block.
  static constexpr int kBoxCols = tt::kTmaSwizzleBytes / static_cast<int>(sizeof(T));  ///< 32, 16.
  static constexpr int kBoxes = kTile / kBoxCols;            ///< Boxes a tile: 2, 4.
  static constexpr int kBoxElems = kTile * kBoxCols;         ///< 8 KB a box.
  static constexpr int kTileElems = kTile * kTile;           ///< 16 KB, 32 KB.
  static constexpr int kWideVec = tt::kVec16<T>;             ///< A 16-byte chunk.
  static constexpr int kChunksPerRow = kBoxCols / kWideVec;  ///< 8 a box row.
  /// Chunks a thread stands for in the emulation: 4 in float, 8 in double.
  static constexpr int kWidePasses = kTileElems / kWideVec / kThreads;
  static constexpr int kLoadPasses = kWidePasses;             ///< No thread loads: see wide_load().
  static constexpr int kStorePasses = kTileElems / kThreads;  ///< 16 elements a thread.
  static constexpr std::size_t kPointerAlign = tt::kTmaChunkBytes;  ///< The map's base.
  static_assert(kTileElems % (kWideVec * kThreads) == 0, "whole chunks a thread");
  static_assert(kTileElems == 8 * 16 * 32 && kThreads == 8 * 32, "8 warps x 16 passes of 8 x 4");
  static_assert(kBoxElems * sizeof(T) % tt::kTmaSwizzleAlign == 0, "boxes 1024-byte aligned");

  /// Where the copy engine can take the rows (a row pitch of whole 16-byte chunks) and the
  /// stores write whole sectors (8 output elements from a row multiple of 8: an output row of
  /// whole sectors). Elsewhere step 13's kernels run.
  static bool fits(const tt::Shape& s) {
    return (s.cols * static_cast<std::int64_t>(sizeof(T))) % tt::kTmaChunkBytes == 0 &&
           (s.rows * static_cast<std::int64_t>(sizeof(T))) % 32 == 0;
  }
  static tt::Launch launch(const tt::Problem& pb) {
    return tt::tile_grid(pb, kTile, dim3(kThreads));
  }
  /// Whether the block's tile lies inside the matrix, so that no store needs a check.
  TT_HD static bool whole_tile(const tt::Thread& me, int rows, int cols) {
    return tt::whole_tile(me.block, kTile, rows, cols);
  }
  /// Every block's tile comes by the copy engine (the emulation's chunk moves, wide_load()).
  TT_HD static bool wide(const tt::Thread&, int, int) { return true; }
  /// Tile slot of tile element (@p r, @p c).
  TT_HD static int slot(int r, int c) {
    const int in_box = SWIZZLE
                           ? tt::swizzle128(r, c % kBoxCols, kBoxCols, static_cast<int>(sizeof(T)))
                           : r * kBoxCols + c % kBoxCols;
    return (c / kBoxCols) * kBoxElems + in_box;
  }
  /// Box @p b of block @p me's tile: tile columns b kBoxCols to b kBoxCols + kBoxCols - 1.
  TT_HD static Box box(const tt::Thread& me, int b, int cols) {
    const int r0 = static_cast<int>(me.block.y) * kTile;
    const int c = static_cast<int>(me.block.x) * kTile + b * kBoxCols;
    return {c < cols, r0, c, b * kBoxElems};
  }
  /// The copy, chunk by chunk: chunk pass kThreads + t of the tile, in box order, each box's
  /// rows in order, each row's kChunksPerRow chunks in order. Inside where the chunk is in the
  /// matrix (a row pitch of whole chunks: a chunk is wholly in or wholly out).
  TT_HD static tt::Move<kWideVec> wide_load(const tt::Thread& me, int pass, int rows, int cols) {
    const int id = pass * kThreads + static_cast<int>(me.thread.x);
    const int b = id / (kTile * kChunksPerRow), r = id / kChunksPerRow % kTile;
    const int c = b * kBoxCols + id % kChunksPerRow * kWideVec;  // tile column
    const std::int64_t row = std::int64_t{me.block.y} * kTile + r;
    const std::int64_t col = std::int64_t{me.block.x} * kTile + c;
    tt::Move<kWideVec> m{row < rows && col < cols, row * cols + col, {}};
    for (int k = 0; k < kWideVec; ++k) m.slot_of(k) = slot(r, c + k);
    return m;
  }
  /// No thread loads (wide() is true for every block).
  TT_HD static tt::Move<> load(const tt::Thread&, int, int, int) { return {false, 0, 0}; }
  /// Store pass p of warp w: tile rows 8 (p mod 8) + lane mod 8 and tile column 8 w + 4 (p / 8)
  /// + lane / 8, so that the warp's 16 passes cover 8 columns top to bottom:
  /// out[(c0 + c) rows + r0 + r]. Eight lanes write 8 consecutive elements of one output row.
  TT_HD static tt::Move<> store(const tt::Thread& me, int pass, int rows, int cols) {
    const unsigned t = me.thread.x, lane = t % 32, warp = t / 32;
    const int r = static_cast<int>(8 * (static_cast<unsigned>(pass) % 8) + lane % 8);
    const int c = static_cast<int>(8 * warp + 4 * (static_cast<unsigned>(pass) / 8) + lane / 8);
    const std::int64_t row = std::int64_t{me.block.y} * kTile + r;  // input row: output column
    const std::int64_t col = std::int64_t{me.block.x} * kTile + c;  // input column: output row
    return {row < rows && col < cols, col * rows + row, slot(r, c)};
  }
};

/// The tile as the engine swizzles it (variant `tma`).
template <typename T>
using TmaLoad = TmaBoxes<T, true>;
/// The tile as the engine writes it without a swizzle (variant `tma-plain`).
template <typename T>
using TmaPlain = TmaBoxes<T, false>;

/// `tma`'s tile stored one 16-byte vector an instruction (variant `tma-wide`).
///
/// `tma` stores one element a thread, as step 06's scalar stores: four times the store
/// instructions of the column kernels of steps 08 to 13, which store 16-byte vectors. Here
/// each thread gathers V elements down a tile column (V tile rows of one column, a 16-byte
/// chunk's worth) and stores them as one vector of an output row. The swizzle repeats every 8
/// tile rows, so a column gives at most two such runs of V rows with different banks: two
/// lanes share a column (tile rows 2 V g .. 2 V g + 2 V - 1, one output sector) and a warp's
/// 16 pairs take 16 neighbouring columns, which the swizzle spreads over all 32 banks. In
/// double a half-warp is served apart from the other (8-byte accesses); its 8 pairs take
/// columns 0-3 and 8-11 of the 16 (the other half 4-7 and 12-15), whose chunks the swizzle
/// sends to 8 different positions for both rows of a pair: one wavefront a half-warp, the
/// fewest 256 bytes need. A store instruction writes 16 output rows, one whole sector each,
/// where the column kernels write 4 rows of 128 bytes.
template <typename T>
struct TmaWide : TmaBoxes<T, true> {
  using Base = TmaBoxes<T, true>;
  static constexpr int kVec = Base::kWideVec;                                    ///< 4, 2.
  static constexpr int kPairRows = 2 * kVec;                                     ///< 8, 4.
  static constexpr int kStorePasses = Base::kTileElems / Base::kThreads / kVec;  ///< 4, 8.
  static constexpr int kColumnGroups = Base::kTile / 16;  ///< 16 columns a store instruction.
  static_assert(kStorePasses * kVec * Base::kThreads == Base::kTileElems, "every element once");
  static_assert(kPairRows * sizeof(T) == 32, "a lane pair writes one output sector");

  /// No thread loads (the copy engine does), at this work's vector width.
  TT_HD static tt::Move<kVec> load(const tt::Thread&, int, int, int) { return {false, 0, {}}; }
  /// Store pass p of warp w: instruction i = w kStorePasses + p covers tile columns
  /// 16 (i mod 4) .. + 15 and tile rows 2 V (i / 4) + V (lane mod 2) .. + V - 1:
  /// out[(c0 + c) rows + r0 + r .. + V - 1], one vector. Pair q = lane / 2 takes column q
  /// with bits 2 and 3 of q swapped: pairs 0-7 (lanes 0-15) columns 0-3 and 8-11.
  TT_HD static tt::Move<kVec> store(const tt::Thread& me, int pass, int rows, int cols) {
    const unsigned t = me.thread.x, lane = t % 32, warp = t / 32, q = lane / 2;
    const int i = static_cast<int>(warp) * kStorePasses + pass;
    const int r = kPairRows * (i / kColumnGroups) + kVec * static_cast<int>(lane % 2);
    const int c =
        16 * (i % kColumnGroups) + static_cast<int>((q & 3u) | (q & 4u) << 1 | (q & 8u) >> 1);
    const std::int64_t row = std::int64_t{me.block.y} * Base::kTile + r;  // output column
    const std::int64_t col = std::int64_t{me.block.x} * Base::kTile + c;  // output row
    // Output rows are whole sectors (fits()): a vector is wholly inside or wholly outside.
    // Inside, both indices are ints: from a 64-bit `col * rows + row` the compiler cannot
    // tell that the vector's elements are neighbours, and stores them one by one (4 STG.E).
    const bool inside = row < rows && col < cols;
    tt::Move<kVec> m{
        inside, inside ? tt::offset(static_cast<int>(col), static_cast<int>(row), rows) : 0, {}};
    for (int k = 0; k < kVec; ++k) m.slot_of(k) = Base::slot(r + k, c);
    return m;
  }
};

/// A tile that the engine copies in and out (variant `tma-store`): the threads only transpose
/// it in shared memory.
///
/// The load is `tma`'s. Then each thread reads its kStorePasses elements in groups of V (a
/// 16-byte chunk's elements): group i is tile rows V g .. V g + V - 1 of tile column c, a warp's
/// 32 lanes on 32 neighbouring columns, so that each read instruction takes 32 different banks
/// of the swizzled tile (a float in each; in double, 16 in each half-warp). The block waits,
/// and each thread writes each group back into the same tile, as one 16-byte chunk of the
/// output tile: output row c, output columns V g .. V g + V - 1, with the 128-byte swizzle
/// again (out_slot()); a quarter-warp's 8 chunks fall in 8 different chunk positions. The
/// engine copies the output tile out as kStoreBoxes boxes of 64 output rows x 128 bytes and
/// writes no element outside the matrix.
template <typename T>
struct TmaBoth : TmaBoxes<T, true> {
  using Base = TmaBoxes<T, true>;
  static constexpr int kVecElems = Base::kWideVec;                 ///< A chunk's elements.
  static constexpr int kRowGroups = Base::kTile / kVecElems;       ///< 16, 32.
  static constexpr int kGroupsPerWarp = 2 * kRowGroups / 8;        ///< 4, 8.
  static constexpr int kStorePasses = kGroupsPerWarp * kVecElems;  ///< 16 elements a thread.
  static constexpr int kStoreBoxes = Base::kBoxes;                 ///< Output boxes: 2, 4.
  static_assert(kStorePasses * Base::kThreads == Base::kTileElems, "every element once");

  /// Group @p i of thread @p me: its first tile row @p r and its tile column @p c.
  TT_HD static void group(const tt::Thread& me, int i, int& r, int& c) {
    const unsigned t = me.thread.x, lane = t % 32, warp = t / 32;
    const int g = static_cast<int>(warp) * kGroupsPerWarp + i;
    r = kVecElems * (g % kRowGroups);
    c = 32 * (g / kRowGroups) + static_cast<int>(8 * (lane / 8) + lane % 8);
  }
  /// Element k of group i (pass i V + k): where it goes in the output, and its tile slot.
  TT_HD static tt::Move<> store(const tt::Thread& me, int pass, int rows, int cols) {
    int r = 0, c = 0;
    group(me, pass / kVecElems, r, c);
    r += pass % kVecElems;
    const std::int64_t row = std::int64_t{me.block.y} * Base::kTile + r;
    const std::int64_t col = std::int64_t{me.block.x} * Base::kTile + c;
    return {row < rows && col < cols, col * rows + row, Base::slot(r, c)};
  }
  /// Slot of output-tile element (@p c, @p r): output row c, output column r.
  TT_HD static int out_slot(int c, int r) {
    return (r / Base::kBoxCols) * Base::kBoxElems +
           tt::swizzle128(c, r % Base::kBoxCols, Base::kBoxCols, static_cast<int>(sizeof(T)));
  }
  /// The write of group @p i back into the tile, as one chunk of the output tile.
  TT_HD static tt::Move<kVecElems> stage(const tt::Thread& me, int i) {
    int r = 0, c = 0;
    group(me, i, r, c);
    tt::Move<kVecElems> m{true, 0, {}};
    for (int k = 0; k < kVecElems; ++k) m.slot_of(k) = out_slot(c, r + k);
    return m;
  }
  /// Output box @p b of block @p me: output rows c0 .. c0 + 63, output columns r0 + b
  /// kBoxCols on; asked for where it starts inside the output.
  TT_HD static Box out_box(const tt::Thread& me, int b, int rows) {
    const int r = static_cast<int>(me.block.y) * Base::kTile + b * Base::kBoxCols;
    return {r < rows, static_cast<int>(me.block.x) * Base::kTile, r, b * Base::kBoxElems};
  }
  /// The engine's copy out, chunk by chunk (for the analyser): chunk pass kThreads + t of the
  /// output tile, box by box, row by row.
  TT_HD static tt::Move<kVecElems> out_chunk(const tt::Thread& me, int pass, int rows, int cols) {
    const int id = pass * Base::kThreads + static_cast<int>(me.thread.x);
    const int b = id / (Base::kTile * Base::kChunksPerRow);
    const int c = id / Base::kChunksPerRow % Base::kTile;
    const int r = b * Base::kBoxCols + id % Base::kChunksPerRow * kVecElems;
    const std::int64_t orow = std::int64_t{me.block.x} * Base::kTile + c;
    const std::int64_t ocol = std::int64_t{me.block.y} * Base::kTile + r;
    tt::Move<kVecElems> m{orow < cols && ocol < rows, orow * rows + ocol, {}};
    for (int k = 0; k < kVecElems; ++k) m.slot_of(k) = out_slot(c, r + k);
    return m;
  }
};

/// Fills block @p me's @p tile through the copy engine: thread 0 starts the copies of the
/// block's boxes, and every thread waits for them on the barrier @p copied.
template <class W>
__device__ void copy_tile_in(const tt::Thread& me, const CUtensorMap* map, tt::Elem<W>* tile,
                             std::uint64_t* copied, int cols) {
  if (me.thread.x == 0) tt::tma::barrier_init(copied);
  __syncthreads();
  if (me.thread.x == 0) {  // the change: one thread asks the copy engine for the tile
    unsigned bytes = 0;
    for (int b = 0; b < W::kBoxes; ++b)
      if (W::box(me, b, cols).inside) bytes += W::kBoxElems * sizeof(tt::Elem<W>);
    tt::tma::barrier_expect(copied, bytes);
    for (int b = 0; b < W::kBoxes; ++b) {
      const Box x = W::box(me, b, cols);
      if (x.inside) tt::tma::load_box(&tile[x.slot], map, x.col, x.row, copied);
    }
  }
  tt::tma::barrier_wait(copied, 0);
}

/// Moves the tiles of work W: the copy engine fills the tile (copy_tile_in()), then every
/// thread stores as step 06's store phase does.
template <class W>
__global__ void __launch_bounds__(W::kThreads)
    transpose_tma(const __grid_constant__ CUtensorMap map, tt::Elem<W>* __restrict__ out, int rows,
                  int cols) {
  using T = tt::Elem<W>;
  __shared__ alignas(tt::kTmaSwizzleAlign) T tile[W::kTileElems];
  __shared__ alignas(8) std::uint64_t copied;  // completes when every box has landed
  const tt::Thread me = tt::this_thread();

  copy_tile_in<W>(me, &map, tile, &copied, cols);
  if (W::whole_tile(me, rows, cols))
    step06::store_phase<false, W>(me, tile, out, rows, cols);
  else
    step06::store_phase<true, W>(me, tile, out, rows, cols);
}

/// What every path of this step states for the harness (tiled.hpp): its work, and that it
/// launches itself, with the tensor maps its kernel takes.
template <class W>
struct EnginePath {
  using Work = W;                            ///< The work description.
  using Elem = tt::Elem<W>;                  ///< Its element type.
  using Host = void;                         ///< No load phase on the CPU.
  static constexpr bool kAsyncLoad = false;  ///< Not cp.async.
  static constexpr bool kCutPasses = false;  ///< No cut passes.
  static constexpr bool kOwnLaunch = true;   ///< tiled.hpp's launch_first calls launch().
};

/// Work W moved by transpose_tma, launched with the input's tensor map.
template <class W>
struct TmaPath : EnginePath<W> {
  static constexpr auto kernel = transpose_tma<W>;  ///< The kernel.
  /// Launches the kernel with grid and block @p l on @p stream.
  static void launch(tt::Launch l, const tt::Elem<W>* in, tt::Elem<W>* out, tt::Shape s,
                     cudaStream_t stream) {
    tt::tma::require_engine_code<kernel>();
    static thread_local tt::TileMapMemo in_map;
    const int e = static_cast<int>(sizeof(tt::Elem<W>));
    kernel<<<l.grid, l.block, 0, stream>>>(
        in_map.get(in, s.rows, s.cols, e, W::kTile, W::kBoxCols, W::kSwizzle), out,
        static_cast<int>(s.rows), static_cast<int>(s.cols));
  }
};

/// Moves the tiles of work W (TmaBoth) in and out through the copy engine: the tile comes in
/// (copy_tile_in()); each thread reads its elements, the block waits, each thread writes them
/// back as output-tile chunks; then thread 0 has the engine copy the output boxes out.
template <class W>
__global__ void __launch_bounds__(W::kThreads)
    transpose_tma_both(const __grid_constant__ CUtensorMap in_map,
                       const __grid_constant__ CUtensorMap out_map, int rows, int cols) {
  using T = tt::Elem<W>;
  constexpr int V = W::kVecElems;
  __shared__ alignas(tt::kTmaSwizzleAlign) T tile[W::kTileElems];
  __shared__ alignas(8) std::uint64_t copied;
  const tt::Thread me = tt::this_thread();

  copy_tile_in<W>(me, &in_map, tile, &copied, cols);
  T v[W::kStorePasses];
#pragma unroll
  for (int p = 0; p < W::kStorePasses; ++p) {  // the column reads, into registers
    const tt::Move<> m = W::store(me, p, rows, cols);
    v[p] = m.inside ? tile[m.slot] : T{};
  }
  __syncthreads();  // every read done: the tile can take the output
#pragma unroll
  for (int i = 0; i < W::kGroupsPerWarp; ++i) {  // the change: each group one output chunk
    tt::Vec<T, V> w;
#pragma unroll
    for (int k = 0; k < V; ++k) w.e[k] = v[i * V + k];
    tt::store_vec<V>(&tile[W::stage(me, i).slot_of(0)], w);
  }
  tt::tma::fence_for_engine();  // the threads' writes, visible to the engine
  __syncthreads();
  if (me.thread.x == 0) {  // one thread has the engine copy the output tile out
    for (int b = 0; b < W::kStoreBoxes; ++b) {
      const Box x = W::out_box(me, b, rows);
      if (x.inside) tt::tma::store_box(&out_map, x.col, x.row, &tile[x.slot]);
    }
    tt::tma::store_commit_and_wait_read();
  }
}

/// Work W moved by transpose_tma_both, launched with the input's and the output's tensor maps.
template <class W>
struct TmaBothPath : EnginePath<W> {
  static constexpr auto kernel = transpose_tma_both<W>;  ///< The kernel.
  /// Launches the kernel with grid and block @p l on @p stream.
  static void launch(tt::Launch l, const tt::Elem<W>* in, tt::Elem<W>* out, tt::Shape s,
                     cudaStream_t stream) {
    tt::tma::require_engine_code<kernel>();
    static thread_local tt::TileMapMemo in_map, out_map;
    const int e = static_cast<int>(sizeof(tt::Elem<W>));
    kernel<<<l.grid, l.block, 0, stream>>>(
        in_map.get(in, s.rows, s.cols, e, W::kTile, W::kBoxCols),
        out_map.get(out, s.cols, s.rows, e, W::kTile, W::kBoxCols), static_cast<int>(s.rows),
        static_cast<int>(s.cols));
  }
};

}  // namespace step14
