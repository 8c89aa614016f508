// Step 05: each thread moves several elements.
//
// What changed since 04: the block shrinks from 32 x 32 to 32 x ROWS threads and loops
// over the 32 x 33 tile in steps of ROWS rows, so each thread loads TILE / ROWS elements
// before the barrier and stores as many after it. The index functions gain the loop
// offset j; the tile layout is step 04's.
//
// What to look for: the loads of one thread are independent, so the compiler issues all
// of them before waiting for the first: more bytes in flight per thread, which is what a
// memory-bound kernel needs. A block of 256 threads instead of 1024 also lets more blocks
// share an SM, and keeps fewer threads waiting at each barrier. The bank arithmetic is
// unchanged: a warp still reads one tile row and one tile column per access.
//
// Expected effect: close to the copy: the default (4 elements a thread) reaches about 93%
// of cudaMemcpy on an H100 at 8192 x 8192 (docs/05-multi-element.md). Compare the variants:
// elements-1 is step 04 again, elements-8 gives each thread 8.
//
// Run:   05-multi-element
//        05-multi-element --variant all      # 1, 2, 4 and 8 elements per thread

#include "05-multi-element/multi_element.hpp"

#include <string>

#include "types.hpp"

namespace step05 {

using tt::Coord;

constexpr int TILE = 32;  ///< Tile side in elements; the block is TILE x ROWS threads.

// --- Index arithmetic: the kernel calls these, and so does --explain. -------------------

/// Shared-memory slot of tile element (r, c): rows of TILE + 1 elements, as in step 04.
TT_HD constexpr int tile_index(int r, int c) {
  return r * (TILE + 1) + c;
}

/// The input element thread (x, y) loads in the pass that starts at tile row j.
TT_HD inline Coord load_coord(uint3 block, uint3 thread, int j) {
  return {static_cast<int>(block.y * TILE + thread.y) + j,
          static_cast<int>(block.x * TILE + thread.x)};
}

/// The output element thread (x, y) stores in the pass that starts at tile row j.
TT_HD inline Coord store_coord(uint3 block, uint3 thread, int j) {
  return {static_cast<int>(block.x * TILE + thread.y) + j,
          static_cast<int>(block.y * TILE + thread.x)};
}

// --- The kernel. -------------------------------------------------------------------------

/// ROWS: thread rows per block; each thread moves TILE / ROWS elements.
template <int ROWS, typename T>
__global__ void transpose_multi(const T* __restrict__ in, T* __restrict__ out, int rows, int cols) {
  static_assert(TILE % ROWS == 0, "the block's rows must divide the tile");
  __shared__ T tile[TILE * (TILE + 1)];

#pragma unroll
  for (int j = 0; j < TILE; j += ROWS) {
    const Coord src = load_coord(blockIdx, threadIdx, j);
    if (tt::inside(src, rows, cols)) {
      tile[tile_index(threadIdx.y + j, threadIdx.x)] = in[tt::offset(src.row, src.col, cols)];
    }
  }
  __syncthreads();

#pragma unroll
  for (int j = 0; j < TILE; j += ROWS) {
    const Coord dst = store_coord(blockIdx, threadIdx, j);
    if (tt::inside(dst, cols, rows)) {
      out[tt::offset(dst.row, dst.col, rows)] = tile[tile_index(threadIdx.x, threadIdx.y + j)];
    }
  }
}

// --- Launchers and description. ----------------------------------------------------------

template <int ROWS, typename T>
void run(const tt::LaunchPlan& p, const T* in, T* out, tt::Shape s, cudaStream_t stream) {
  transpose_multi<ROWS, T>
      <<<p.grid, p.block, 0, stream>>>(in, out, static_cast<int>(s.rows), static_cast<int>(s.cols));
}

template <int ROWS>
tt::LaunchPlan plan(const tt::Problem& pb) {
  const int rows = static_cast<int>(pb.shape.rows), cols = static_cast<int>(pb.shape.cols);
  const auto size = static_cast<std::int64_t>(tt::dtype_size(pb.dtype));
  [[maybe_unused]] const int w = static_cast<int>(size);
  [[maybe_unused]] constexpr int passes = TILE / ROWS;
  tt::LaunchPlan p;
  p.block = dim3(TILE, ROWS);
  p.grid = dim3(static_cast<unsigned>(tt::ceil_div(cols, TILE)),
                static_cast<unsigned>(tt::ceil_div(rows, TILE)));
  p.shared_bytes = TILE * (TILE + 1) * static_cast<std::size_t>(size);
  using Pos = tt::ThreadPos;
  using Addr = std::optional<std::int64_t>;
  const auto ty = [](const Pos& t) { return static_cast<int>(t.thread.y) + t.iteration * ROWS; };
  const auto tx = [](const Pos& t) { return static_cast<int>(t.thread.x); };
  const auto src = [](const Pos& t) { return load_coord(t.block, t.thread, t.iteration * ROWS); };
  const auto dst = [](const Pos& t) { return store_coord(t.block, t.thread, t.iteration * ROWS); };
  p.accesses = {
      {"in[offset(src.row, src.col, cols)]", tt::Space::global, tt::Op::load, w, passes,
       [=](const Pos& t) -> Addr {
         if (!tt::inside(src(t), rows, cols)) return std::nullopt;
         return tt::offset(src(t).row, src(t).col, cols) * size;
       }},
      {"tile[tile_index(threadIdx.y + j, threadIdx.x)] = ...", tt::Space::shared, tt::Op::store, w,
       passes,
       [=](const Pos& t) -> Addr {
         if (!tt::inside(src(t), rows, cols)) return std::nullopt;
         return tile_index(ty(t), tx(t)) * size;
       }},
      {"tile[tile_index(threadIdx.x, threadIdx.y + j)]", tt::Space::shared, tt::Op::load, w, passes,
       [=](const Pos& t) -> Addr {
         if (!tt::inside(dst(t), cols, rows)) return std::nullopt;
         return tile_index(tx(t), ty(t)) * size;
       }},
      {"out[offset(dst.row, dst.col, rows)] = ...", tt::Space::global, tt::Op::store, w, passes,
       [=](const Pos& t) -> Addr {
         if (!tt::inside(dst(t), cols, rows)) return std::nullopt;
         return tt::offset(dst(t).row, dst(t).col, rows) * size;
       }},
  };
  return p;
}

template <int ROWS>
tt::Variant variant() {
  const int per = TILE / ROWS;
  return {"elements-" + std::to_string(per),
          "32 x " + std::to_string(ROWS) + " threads, " + std::to_string(per) +
              " element(s) per thread, 32 x 33 tile",
          tt::Expect::transpose,
          plan<ROWS>,
          run<ROWS, float>,
          run<ROWS, double>};
}

const tt::Step& step() {
  static const tt::Step s = [] {
    tt::Step st;
    st.id = "05-multi-element";
    st.title = "Several elements per thread: 32 x 8 threads move a 32 x 32 tile";
    st.variants = {variant<32>(), variant<16>(), variant<8>(), variant<4>()};
    st.default_variant = "elements-4";
    return st;
  }();
  return s;
}

}  // namespace step05
