// Step 03: stage a 32 x 32 tile in shared memory.
//
// What changed since 02: a block of 32 x 32 threads first copies one 32 x 32 tile of the
// input into shared memory, row by row, then (after __syncthreads) writes the transposed
// tile to the output, again row by row. Both global sides are now coalesced: every warp
// reads 32 consecutive input elements and writes 32 consecutive output elements. The
// transpose itself happens inside shared memory, where a warp reads a tile *column*.
//
// What to look for: shared memory has 32 banks of 4 bytes; word w is in bank w mod 32.
// In a 32-wide float tile, tile(r, c) is word 32 r + c, so a column (fixed c, r = 0..31)
// is 32 words all in bank c: a 32-way bank conflict. The read of each column takes 32
// wavefronts instead of 1 (run with --explain to see it lane by lane).
//
// Expected effect: the global side is fixed, but the conflict serialises the shared reads.
// On an H100 this lands at about a third of the copy (docs/03-shared.md has the numbers).
//
// Run:   03-shared
//        03-shared --explain            # the 32-way conflict, lane by lane

#include "03-shared/shared.hpp"

#include "types.hpp"

namespace step03 {

using tt::Coord;

constexpr int TILE = 32;  ///< Tile side in elements; the block is TILE x TILE threads.

// --- Index arithmetic: the kernel calls these, and so does --explain. -------------------

/// Shared-memory slot of tile element (r, c): row-major, TILE elements a row (no padding).
TT_HD constexpr int tile_index(int r, int c) {
  return r * TILE + c;
}

/// The input element that thread (x, y) of a block loads: row y, column x of the block's tile.
TT_HD inline Coord load_coord(uint3 block, uint3 thread) {
  return {static_cast<int>(block.y * TILE + thread.y), static_cast<int>(block.x * TILE + thread.x)};
}

/// The output element that thread (x, y) stores: row y, column x of the transposed tile,
/// which sits at tile position (block.x, block.y) of the output.
TT_HD inline Coord store_coord(uint3 block, uint3 thread) {
  return {static_cast<int>(block.x * TILE + thread.y), static_cast<int>(block.y * TILE + thread.x)};
}

// --- The kernel. -------------------------------------------------------------------------

template <typename T>
__global__ void transpose_shared(const T* __restrict__ in, T* __restrict__ out, int rows,
                                 int cols) {
  __shared__ T tile[TILE * TILE];

  // Read a tile row per warp: coalesced global load, consecutive banks in shared memory.
  const Coord src = load_coord(blockIdx, threadIdx);
  if (tt::inside(src, rows, cols)) {
    tile[tile_index(threadIdx.y, threadIdx.x)] = in[tt::offset(src.row, src.col, cols)];
  }
  __syncthreads();  // every thread reaches it: no return above, the branch only guards

  // Write a row of the output per warp: coalesced global store, but the warp reads a
  // column of the tile: 32 lanes, one bank.
  const Coord dst = store_coord(blockIdx, threadIdx);
  if (tt::inside(dst, cols, rows)) {
    out[tt::offset(dst.row, dst.col, rows)] = tile[tile_index(threadIdx.x, threadIdx.y)];
  }
}

// --- Launcher and description. -----------------------------------------------------------

template <typename T>
void run(const tt::LaunchPlan& p, const T* in, T* out, tt::Shape s, cudaStream_t stream) {
  transpose_shared<T>
      <<<p.grid, p.block, 0, stream>>>(in, out, static_cast<int>(s.rows), static_cast<int>(s.cols));
}

tt::LaunchPlan plan(const tt::Problem& pb) {
  const int rows = static_cast<int>(pb.shape.rows), cols = static_cast<int>(pb.shape.cols);
  const auto size = static_cast<std::int64_t>(tt::dtype_size(pb.dtype));
  [[maybe_unused]] const int w = static_cast<int>(size);
  tt::LaunchPlan p;
  p.block = dim3(TILE, TILE);
  p.grid = dim3(static_cast<unsigned>(tt::ceil_div(cols, TILE)),
                static_cast<unsigned>(tt::ceil_div(rows, TILE)));
  p.shared_bytes = TILE * TILE * static_cast<std::size_t>(size);
  using Pos = tt::ThreadPos;
  using Addr = std::optional<std::int64_t>;
  const auto loads = [=](const Pos& t) {
    return tt::inside(load_coord(t.block, t.thread), rows, cols);
  };
  const auto stores = [=](const Pos& t) {
    return tt::inside(store_coord(t.block, t.thread), cols, rows);
  };
  p.accesses = {
      {"in[offset(src.row, src.col, cols)]", tt::Space::global, tt::Op::load, w, 1,
       [=](const Pos& t) -> Addr {
         const Coord c = load_coord(t.block, t.thread);
         if (!loads(t)) return std::nullopt;
         return tt::offset(c.row, c.col, cols) * size;
       }},
      {"tile[tile_index(threadIdx.y, threadIdx.x)] = ...", tt::Space::shared, tt::Op::store, w, 1,
       [=](const Pos& t) -> Addr {
         if (!loads(t)) return std::nullopt;
         return tile_index(static_cast<int>(t.thread.y), static_cast<int>(t.thread.x)) * size;
       }},
      {"tile[tile_index(threadIdx.x, threadIdx.y)]", tt::Space::shared, tt::Op::load, w, 1,
       [=](const Pos& t) -> Addr {
         if (!stores(t)) return std::nullopt;
         return tile_index(static_cast<int>(t.thread.x), static_cast<int>(t.thread.y)) * size;
       }},
      {"out[offset(dst.row, dst.col, rows)] = ...", tt::Space::global, tt::Op::store, w, 1,
       [=](const Pos& t) -> Addr {
         const Coord c = store_coord(t.block, t.thread);
         if (!stores(t)) return std::nullopt;
         return tt::offset(c.row, c.col, rows) * size;
       }},
  };
  return p;
}

const tt::Step& step() {
  static const tt::Step s = [] {
    tt::Step st;
    st.id = "03-shared";
    st.title = "Shared-memory tile 32 x 32: both global sides coalesced, 32-way bank conflict";
    st.variants = {{"tile-32x32", "32 x 32 threads, one element each, unpadded tile",
                    tt::Expect::transpose, plan, run<float>, run<double>}};
    st.default_variant = "tile-32x32";
    return st;
  }();
  return s;
}

}  // namespace step03
