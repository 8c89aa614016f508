// Step 08: diagonal block order.
//
// What changed since 07: one line at the top of the kernel. Each block first computes which
// tile it works on with diagonal_block() (diagonal.hpp) and uses that tile everywhere
// step 07 used blockIdx. The shared layout, the vector and scalar paths, and every index
// function are step 07's.
//
// What to look for: on GPUs whose memory was split into partitions by plain address bits,
// blocks in row order wrote output columns that all mapped to the same partition
// ("partition camping"), and diagonal order spread them out. Recent GPUs hash addresses
// across channels, so the effect may be gone: this step measures it instead of assuming it.
// The "row-order" variant is the identical kernel without the remapping, for a fair
// comparison in the same run.
//
// Expected effect: none, or within noise, on an H100 (docs/08-diagonal.md reports what
// was measured, at power-of-two and odd sizes).
//
// Run:   08-diagonal --variant all
//        08-diagonal --variant all --size 4096

#include "08-diagonal/diagonal.hpp"

#include <cstdint>

#include "07-swizzle/swizzle.hpp"

namespace step08 {

using tt::Coord;
using tt::Pack;

constexpr int TILE = 32;
constexpr int ROWS = 8;

// --- Index arithmetic (step 07's, with `tile` in place of blockIdx). --------------------

template <typename T>
TT_HD constexpr int tile_index(int r, int c) {
  return r * TILE + step07::swizzle(r, c, TILE, Pack<T>::size, Pack<T>::size);
}

TT_HD constexpr int tile_index_scalar(int r, int c) {
  return r * TILE + step07::swizzle(r, c, TILE, 1, 1);
}

template <typename T>
TT_HD inline Coord load_coord(uint3 tile, uint3 thread, int j) {
  return {static_cast<int>(tile.y * TILE + thread.y) + j,
          static_cast<int>(tile.x * TILE + thread.x * Pack<T>::size)};
}

template <typename T>
TT_HD inline Coord store_coord(uint3 tile, uint3 thread, int j) {
  return {static_cast<int>(tile.x * TILE + thread.y) + j,
          static_cast<int>(tile.y * TILE + thread.x * Pack<T>::size)};
}

TT_HD inline Coord scalar_tile_coord(int i) { return {i / TILE, i % TILE}; }

// --- The kernel: step 07's, with the block order as a parameter. ------------------------

template <bool DIAGONAL, bool VECTOR, typename T>
__global__ void transpose_diagonal(const T* __restrict__ in, T* __restrict__ out, int rows,
                                   int cols) {
  constexpr int V = Pack<T>::size;
  __shared__ alignas(16) T tile[TILE * TILE];

  // The only new line: which tile this block moves.
  const uint3 t = DIAGONAL ? diagonal_block(blockIdx, gridDim) : blockIdx;

  if constexpr (VECTOR) {
#pragma unroll
    for (int j = 0; j < TILE; j += ROWS) {
      const Coord src = load_coord<T>(t, threadIdx, j);
      const int r = threadIdx.y + j, c = threadIdx.x * V;
      if (src.row < rows && src.col < cols) {
        *reinterpret_cast<Pack<T>*>(&tile[tile_index<T>(r, c)]) =
            *reinterpret_cast<const Pack<T>*>(&in[tt::offset(src.row, src.col, cols)]);
      }
    }
  } else {
    const int threads = blockDim.x * blockDim.y;
    for (int i = threadIdx.y * blockDim.x + threadIdx.x; i < TILE * TILE; i += threads) {
      const Coord e = scalar_tile_coord(i);
      const Coord src{static_cast<int>(t.y) * TILE + e.row, static_cast<int>(t.x) * TILE + e.col};
      if (tt::inside(src, rows, cols))
        tile[tile_index_scalar(e.row, e.col)] = in[tt::offset(src.row, src.col, cols)];
    }
  }
  __syncthreads();

  if constexpr (VECTOR) {
#pragma unroll
    for (int j = 0; j < TILE; j += ROWS) {
      const Coord dst = store_coord<T>(t, threadIdx, j);
      const int r = threadIdx.x * V, c = threadIdx.y + j;
      if (dst.row < cols && dst.col < rows) {
        Pack<T> p;
#pragma unroll
        for (int k = 0; k < V; ++k) p.e[k] = tile[tile_index<T>(r + k, c)];
        *reinterpret_cast<Pack<T>*>(&out[tt::offset(dst.row, dst.col, rows)]) = p;
      }
    }
  } else {
    const int threads = blockDim.x * blockDim.y;
    for (int i = threadIdx.y * blockDim.x + threadIdx.x; i < TILE * TILE; i += threads) {
      const Coord e = scalar_tile_coord(i);
      const Coord dst{static_cast<int>(t.x) * TILE + e.row, static_cast<int>(t.y) * TILE + e.col};
      if (tt::inside(dst, cols, rows))
        out[tt::offset(dst.row, dst.col, rows)] = tile[tile_index_scalar(e.col, e.row)];
    }
  }
}

// --- Launchers and description. ----------------------------------------------------------

template <bool DIAGONAL, typename T>
void run(const tt::LaunchPlan& p, const T* in, T* out, tt::Shape s, cudaStream_t stream) {
  constexpr int V = Pack<T>::size;
  const int rows = static_cast<int>(s.rows), cols = static_cast<int>(s.cols);
  const bool vector = reinterpret_cast<std::uintptr_t>(in) % 16 == 0 &&
                      reinterpret_cast<std::uintptr_t>(out) % 16 == 0 && s.cols % V == 0 &&
                      s.rows % V == 0;
  if (vector) {
    transpose_diagonal<DIAGONAL, true, T><<<p.grid, p.block, 0, stream>>>(in, out, rows, cols);
  } else {
    transpose_diagonal<DIAGONAL, false, T><<<p.grid, p.block, 0, stream>>>(in, out, rows, cols);
  }
}

/// Step 07's plan (same launch shape, same accesses per tile), with each block's tile
/// taken through the diagonal order: the analyser sees the addresses this kernel touches.
template <bool DIAGONAL>
tt::LaunchPlan plan(const tt::Problem& pb) {
  tt::LaunchPlan p = step07::step().find("chunked")->plan(pb);
  if (DIAGONAL) {
    const dim3 grid = p.grid;
    for (auto& a : p.accesses) {
      a.address = [f = a.address, grid](const tt::ThreadPos& t) {
        return f(tt::ThreadPos{diagonal_block(t.block, grid), t.thread, t.iteration});
      };
    }
  }
  return p;
}

const tt::Step& step() {
  static const tt::Step s = [] {
    tt::Step st;
    st.id = "08-diagonal";
    st.title = "Diagonal block order on the swizzled kernel of step 07";
    st.variants = {
        {"diagonal", "step 07's kernel, blocks take tiles in diagonal order",
         tt::Expect::transpose, plan<true>, run<true, float>, run<true, double>},
        {"row-order", "the same kernel, blocks take tiles in row order (step 07)",
         tt::Expect::transpose, plan<false>, run<false, float>, run<false, double>},
    };
    st.default_variant = "diagonal";
    return st;
  }();
  return s;
}

}  // namespace step08
