// Step 04: pad the tile by one column.
//
// What changed since 03: one line, tile_index(). Each tile row is now TILE + 1 elements
// long in shared memory, so tile(r, c) is word 33 r + c and lives in bank (r + c) mod 32:
// the 32 elements of a column land in 32 different banks. The kernel is step 03's with the
// tile side as a template parameter, so a 16 x 16 tile can be tried too.
//
// What to look for: a row stride of 33 is coprime with 32, so r -> 33 r mod 32 is a
// permutation and a column read is conflict-free. The price is one unused column: 32 x 33
// words for 32 x 32 elements (3% more shared memory). A 16 x 16 tile padded to 16 x 17 is
// NOT conflict-free: a warp then covers two tile rows (or two columns) at once, 17 words
// apart, and lane 31 lands in bank 0 beside lane 0: a 2-way conflict on both the row
// store and the column read (run --variant pad-16x17 --explain).
//
// Expected effect: the shared reads drop from 32 wavefronts to 1, and the kernel gets
// about half of the copy on an H100 (docs/04-padding.md).
//
// Run:   04-padding
//        04-padding --variant all --explain

#include "04-padding/padding.hpp"

#include "types.hpp"

namespace step04 {

using tt::Coord;

// --- Index arithmetic: the kernel calls these, and so does --explain. -------------------

/// Shared-memory slot of tile element (r, c): rows of TILE + 1 elements (one of padding).
template <int TILE>
TT_HD constexpr int tile_index(int r, int c) {
  return r * (TILE + 1) + c;
}

/// The input element that thread (x, y) loads: row y, column x of the block's tile.
template <int TILE>
TT_HD inline Coord load_coord(uint3 block, uint3 thread) {
  return {static_cast<int>(block.y * TILE + thread.y), static_cast<int>(block.x * TILE + thread.x)};
}

/// The output element that thread (x, y) stores: row y, column x of the transposed tile.
template <int TILE>
TT_HD inline Coord store_coord(uint3 block, uint3 thread) {
  return {static_cast<int>(block.x * TILE + thread.y), static_cast<int>(block.y * TILE + thread.x)};
}

// --- The kernel. -------------------------------------------------------------------------

template <int TILE, typename T>
__global__ void transpose_padded(const T* __restrict__ in, T* __restrict__ out, int rows,
                                 int cols) {
  __shared__ T tile[TILE * (TILE + 1)];

  const Coord src = load_coord<TILE>(blockIdx, threadIdx);
  if (tt::inside(src, rows, cols)) {
    tile[tile_index<TILE>(threadIdx.y, threadIdx.x)] = in[tt::offset(src.row, src.col, cols)];
  }
  __syncthreads();

  // The column read: word (TILE + 1) x + y, bank (x + y) mod 32 for TILE = 32.
  const Coord dst = store_coord<TILE>(blockIdx, threadIdx);
  if (tt::inside(dst, cols, rows)) {
    out[tt::offset(dst.row, dst.col, rows)] = tile[tile_index<TILE>(threadIdx.x, threadIdx.y)];
  }
}

// --- Launchers and description. ----------------------------------------------------------

template <int TILE, typename T>
void run(const tt::LaunchPlan& p, const T* in, T* out, tt::Shape s, cudaStream_t stream) {
  transpose_padded<TILE, T>
      <<<p.grid, p.block, 0, stream>>>(in, out, static_cast<int>(s.rows), static_cast<int>(s.cols));
}

template <int TILE>
tt::LaunchPlan plan(const tt::Problem& pb) {
  const int rows = static_cast<int>(pb.shape.rows), cols = static_cast<int>(pb.shape.cols);
  const auto size = static_cast<std::int64_t>(tt::dtype_size(pb.dtype));
  [[maybe_unused]] const int w = static_cast<int>(size);
  tt::LaunchPlan p;
  p.block = dim3(TILE, TILE);
  p.grid = dim3(static_cast<unsigned>(tt::ceil_div(cols, TILE)),
                static_cast<unsigned>(tt::ceil_div(rows, TILE)));
  p.shared_bytes = TILE * (TILE + 1) * static_cast<std::size_t>(size);
  using Pos = tt::ThreadPos;
  using Addr = std::optional<std::int64_t>;
  const auto loads = [=](const Pos& t) {
    return tt::inside(load_coord<TILE>(t.block, t.thread), rows, cols);
  };
  const auto stores = [=](const Pos& t) {
    return tt::inside(store_coord<TILE>(t.block, t.thread), cols, rows);
  };
  p.accesses = {
      {"in[offset(src.row, src.col, cols)]", tt::Space::global, tt::Op::load, w, 1,
       [=](const Pos& t) -> Addr {
         const Coord c = load_coord<TILE>(t.block, t.thread);
         if (!loads(t)) return std::nullopt;
         return tt::offset(c.row, c.col, cols) * size;
       }},
      {"tile[tile_index(threadIdx.y, threadIdx.x)] = ...", tt::Space::shared, tt::Op::store, w, 1,
       [=](const Pos& t) -> Addr {
         if (!loads(t)) return std::nullopt;
         return tile_index<TILE>(static_cast<int>(t.thread.y), static_cast<int>(t.thread.x)) * size;
       }},
      {"tile[tile_index(threadIdx.x, threadIdx.y)]", tt::Space::shared, tt::Op::load, w, 1,
       [=](const Pos& t) -> Addr {
         if (!stores(t)) return std::nullopt;
         return tile_index<TILE>(static_cast<int>(t.thread.x), static_cast<int>(t.thread.y)) * size;
       }},
      {"out[offset(dst.row, dst.col, rows)] = ...", tt::Space::global, tt::Op::store, w, 1,
       [=](const Pos& t) -> Addr {
         const Coord c = store_coord<TILE>(t.block, t.thread);
         if (!stores(t)) return std::nullopt;
         return tt::offset(c.row, c.col, rows) * size;
       }},
  };
  return p;
}

const tt::Step& step() {
  static const tt::Step s = [] {
    tt::Step st;
    st.id = "04-padding";
    st.title = "Padded tile 32 x 33: the column read is conflict-free";
    st.variants = {
        {"pad-32x33", "32 x 32 threads, tile padded to 32 x 33", tt::Expect::transpose, plan<32>,
         run<32, float>, run<32, double>},
        {"pad-16x17", "16 x 16 threads, tile padded to 16 x 17 (a 2-way conflict remains)",
         tt::Expect::transpose, plan<16>, run<16, float>, run<16, double>},
    };
    st.default_variant = "pad-32x33";
    return st;
  }();
  return s;
}

}  // namespace step04
