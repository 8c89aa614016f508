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
#include "error.hpp"
#include "kernel.hpp"
#include "tiled.hpp"
#include "tensor_copy.cuh"

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
  static constexpr int kTile = 64;                                         ///< Tile side.
  static constexpr int kThreads = 256;                                     ///< Threads a block.
  static constexpr int kBoxCols = tt::kTmaSwizzleBytes / static_cast<int>(sizeof(T));  ///< 32, 16.
  static constexpr int kBoxes = kTile / kBoxCols;                          ///< Boxes a tile: 2, 4.
  static constexpr int kBoxElems = kTile * kBoxCols;                       ///< 8 KB a box.
  static constexpr int kTileElems = kTile * kTile;                         ///< 16 KB, 32 KB.
  static constexpr int kWideVec = tt::kVec16<T>;                           ///< A 16-byte chunk.
  static constexpr int kChunksPerRow = kBoxCols / kWideVec;                ///< 8 a box row.
  /// Chunks a thread stands for in the emulation: 4 in float, 8 in double.
  static constexpr int kWidePasses = kTileElems / kWideVec / kThreads;
  static constexpr int kLoadPasses = kWidePasses;  ///< No thread loads: see wide_load().
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
    const int in_box = SWIZZLE ? tt::swizzle128(r, c % kBoxCols, kBoxCols, static_cast<int>(sizeof(T)))
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

/// Moves the tiles of work W: thread 0 starts the copies of the block's boxes, every thread
/// waits for them on the barrier, then stores as step 06's store phase does.
template <class W>
__global__ void __launch_bounds__(W::kThreads)
    transpose_tma(const __grid_constant__ CUtensorMap map, tt::Elem<W>* __restrict__ out,
                  int rows, int cols) {
  using T = tt::Elem<W>;
  __shared__ alignas(tt::kTmaSwizzleAlign) T tile[W::kTileElems];
  __shared__ alignas(8) std::uint64_t copied;  // completes when every box has landed
  const tt::Thread me = tt::this_thread();

  if (me.thread.x == 0) tt::tma::barrier_init(&copied);
  __syncthreads();
  if (me.thread.x == 0) {  // the change: one thread asks the copy engine for the tile
    unsigned bytes = 0;
    for (int b = 0; b < W::kBoxes; ++b)
      if (W::box(me, b, cols).inside) bytes += W::kBoxElems * sizeof(T);
    tt::tma::barrier_expect(&copied, bytes);
    for (int b = 0; b < W::kBoxes; ++b) {
      const Box x = W::box(me, b, cols);
      if (x.inside) tt::tma::load_box(&tile[x.slot], &map, x.col, x.row, &copied);
    }
  }
  tt::tma::barrier_wait(&copied, 0);
  if (W::whole_tile(me, rows, cols))
    step06::store_phase<false, W>(me, tile, out, rows, cols);
  else
    step06::store_phase<true, W>(me, tile, out, rows, cols);
}

/// Whether this program's transpose_tma<W> runs the copy engine on this GPU: false where the
/// build holds no code for compute capability 9.0 and the driver compiled an older
/// architecture's PTX for it (that code only traps).
template <class W>
bool has_copy_engine_code() {
  static const bool ok = [] {
    cudaFuncAttributes a{};
    TT_CUDA_CHECK(cudaFuncGetAttributes(&a, transpose_tma<W>));
    return a.ptxVersion >= 90 || (a.ptxVersion == 0 && a.binaryVersion >= 90);
  }();
  return ok;
}

/// Work W moved by transpose_tma (a tt::Path that launches itself): launched with the input's
/// tensor map (tt::make_tile_map), made on the host when the input or the shape changes (not
/// for every launch: a timed run times the kernels, not the driver's encoding).
template <class W>
struct TmaPath {
  using Work = W;                                  ///< The work description.
  using Elem = tt::Elem<W>;                        ///< Its element type.
  using Host = void;                               ///< No load phase on the CPU.
  static constexpr auto kernel = transpose_tma<W>;  ///< The kernel.
  static constexpr bool kAsyncLoad = false;        ///< Not cp.async.
  static constexpr bool kCutPasses = false;        ///< No cut passes.
  static constexpr bool kOwnLaunch = true;         ///< tiled.hpp's launch_first calls launch().
  /// Launches transpose_tma with grid and block @p l on @p stream.
  static void launch(tt::Launch l, const tt::Elem<W>* in, tt::Elem<W>* out, tt::Shape s,
                     cudaStream_t stream) {
    if (!has_copy_engine_code<W>())
      throw tt::CudaError(cudaErrorNoKernelImageForDevice,
                          "this build has no code for compute capability 9.0, where the copy "
                          "engine's instructions are: configure it with "
                          "CMAKE_CUDA_ARCHITECTURES including 90");
    struct Made {
      const void* in = nullptr;
      std::int64_t rows = 0, cols = 0;
      CUtensorMap map;
    };
    static thread_local Made made;  // the last map made, per thread of the host
    if (made.in != in || made.rows != s.rows || made.cols != s.cols) {
      tt::make_tile_map(&made.map, in, s.rows, s.cols, static_cast<int>(sizeof(tt::Elem<W>)),
                        W::kTile, W::kBoxCols, W::kSwizzle);
      made.in = in, made.rows = s.rows, made.cols = s.cols;
    }
    transpose_tma<W><<<l.grid, l.block, 0, stream>>>(made.map, out, static_cast<int>(s.rows),
                                                     static_cast<int>(s.cols));
  }
};

}  // namespace step14
