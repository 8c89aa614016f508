// Step 08: the order of the blocks.
//
// What changed since 07: the grid is one-dimensional, so that a block's number b is simply
// blockIdx.x and the order in which blocks start is the order of b. Each block first asks
// tile_of() (diagonal.hpp) which tile b stands for, and uses that tile everywhere step 07
// used blockIdx. The swizzled 64 x 64 tile, the 16-byte and scalar paths and every index
// function are step 07's (swizzle.hpp).
//
// What to look for: blocks start roughly in the order of their linear number. On GPUs whose
// memory was split into partitions by plain address bits, blocks in row order wrote output
// columns that all mapped to the same partition ("partition camping"), and diagonal order
// spread them out. Recent GPUs hash addresses across channels, so that effect may be gone:
// this step measures it instead of assuming it. It also measures column order, where the
// blocks that run together write neighbouring pieces of the same output rows. That matters
// when output rows do not start on a 32-byte sector (4099 x 8191: rows of 4099 floats):
// every output row piece then shares its first and last sector with the neighbouring
// tile's piece, and the two halves of a sector should reach the L2 cache close in time.
//
// Expected effect: see docs/08-diagonal.md: which order helps where, measured at
// power-of-two, non-power-of-two and odd sizes, with the DRAM counters that explain it.
//
// Run:   08-diagonal                      # all three orders, beside memcpy and cuBLAS
//        08-diagonal --rows 4099 --cols 8191

#include "08-diagonal/diagonal.hpp"

#include "07-swizzle/swizzle.hpp"

namespace step08 {

using step07::Geometry;
using step07::load_slot;
using step07::scalar_slot;
using step07::store_slot;
using step07::tile_index;
using step07::tile_index_scalar;
using tt::Coord;
using tt::Pack;

// --- The kernel: step 07's, with the block order as a parameter. ------------------------

template <Order ORDER, typename T, class G, bool VECTOR>
__global__ void __launch_bounds__(G::kThreads)
    transpose_ordered(const T* __restrict__ in, T* __restrict__ out, int rows, int cols) {
  constexpr int TILE = G::kTile;
  __shared__ alignas(16) T tile[TILE * TILE];
  const int t = threadIdx.x;
  // The only new lines: which tile block number blockIdx.x moves.
  const unsigned gx = (cols + TILE - 1) / TILE, gy = (rows + TILE - 1) / TILE;
  const uint3 b = tile_of(ORDER, blockIdx.x, gx, gy);
  const int tile_row = b.y * TILE, tile_col = b.x * TILE;

  if constexpr (VECTOR) {
#pragma unroll
    for (int pass = 0; pass < G::kLoadPasses; ++pass) {
      const Coord s = load_slot<G>(t, pass);
      const Coord src{tile_row + s.row, tile_col + s.col};
      if (src.row < rows && src.col < cols) {
        *reinterpret_cast<Pack<T>*>(&tile[tile_index<G>(s.row, s.col)]) =
            *reinterpret_cast<const Pack<T>*>(&in[tt::offset(src.row, src.col, cols)]);
      }
    }
  } else {
#pragma unroll
    for (int pass = 0; pass < G::kScalarPasses; ++pass) {
      const Coord s = scalar_slot<G>(t, pass);
      const Coord src{tile_row + s.row, tile_col + s.col};
      if (tt::inside(src, rows, cols))
        tile[tile_index_scalar<G>(s.row, s.col)] = in[tt::offset(src.row, src.col, cols)];
    }
  }
  __syncthreads();

  if constexpr (VECTOR) {
#pragma unroll
    for (int pass = 0; pass < G::kStorePasses; ++pass) {
      const Coord s = store_slot<G>(t, pass);
      const Coord dst{tile_col + s.row, tile_row + s.col};
      if (dst.row < cols && dst.col < rows) {
        Pack<T> v;
#pragma unroll
        for (int k = 0; k < G::kV; ++k) v.e[k] = tile[tile_index<G>(s.col + k, s.row)];
        *reinterpret_cast<Pack<T>*>(&out[tt::offset(dst.row, dst.col, rows)]) = v;
      }
    }
  } else {
#pragma unroll
    for (int pass = 0; pass < G::kScalarPasses; ++pass) {
      const Coord s = scalar_slot<G>(t, pass);
      const Coord dst{tile_col + s.row, tile_row + s.col};
      if (tt::inside(dst, cols, rows))
        out[tt::offset(dst.row, dst.col, rows)] = tile[tile_index_scalar<G>(s.col, s.row)];
    }
  }
}

// --- Launchers and description. ----------------------------------------------------------

/// Step 07's tile64 geometry: 512 threads on the 16-byte path, 1024 on the scalar path.
template <typename T>
using Vec = Geometry<T, 64, 512>;
template <typename T>
using Sca = Geometry<T, 64, 1024>;

template <Order ORDER, typename T>
void run(const tt::LaunchPlan& p, const T* in, T* out, tt::Shape s, cudaStream_t stream) {
  const int rows = static_cast<int>(s.rows), cols = static_cast<int>(s.cols);
  if (step07::vector_ok(in, out, s)) {
    transpose_ordered<ORDER, T, Vec<T>, true><<<p.grid, p.block, 0, stream>>>(in, out, rows, cols);
  } else if (p.block.x == Sca<T>::kThreads) {
    transpose_ordered<ORDER, T, Sca<T>, false><<<p.grid, p.block, 0, stream>>>(in, out, rows, cols);
  } else {
    transpose_ordered<ORDER, T, Vec<T>, false><<<p.grid, p.block, 0, stream>>>(in, out, rows, cols);
  }
}

/// Step 07's tile64 plan (same block, same accesses per tile) on a one-dimensional grid of
/// as many blocks as tiles, with block b's tile taken in @p ORDER: the analyser sees the
/// addresses this kernel touches.
template <Order ORDER>
tt::LaunchPlan plan(const tt::Problem& pb) {
  tt::LaunchPlan p = step07::step().find("tile64")->plan(pb);
  const unsigned gx = p.grid.x, gy = p.grid.y;
  p.grid = dim3(gx * gy);
  for (auto& a : p.accesses) {
    a.address = [f = a.address, gx, gy](const tt::ThreadPos& t) {
      return f(tt::ThreadPos{tile_of(ORDER, t.block.x, gx, gy), t.thread, t.iteration});
    };
  }
  return p;
}

const tt::Step& step() {
  static const tt::Step s = [] {
    tt::Step st;
    st.id = "08-diagonal";
    st.title = "Block order (row, diagonal, column) on step 07's 64 x 64 swizzled kernel";
    st.variants = {
        {"column", "blocks walk down the input's tile columns: output rows are written in order",
         tt::Expect::transpose, plan<Order::column>, run<Order::column, float>,
         run<Order::column, double>},
        {"diagonal", "blocks walk the tile diagonals (the classic remedy for partition camping)",
         tt::Expect::transpose, plan<Order::diagonal>, run<Order::diagonal, float>,
         run<Order::diagonal, double>},
        {"row", "blocks walk the input's tile rows: step 07's order", tt::Expect::transpose,
         plan<Order::row>, run<Order::row, float>, run<Order::row, double>},
    };
    st.default_variant = "all";
    st.headline = "column";
    return st;
  }();
  return s;
}

}  // namespace step08
