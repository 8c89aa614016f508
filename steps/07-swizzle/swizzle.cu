// Step 07: swizzle the tile instead of padding it.
//
// What changed since 06: tile_index(). The tile is dense again (32 x 32, no padding), and
// each element's column is permuted by an XOR with (a function of) its row, see
// swizzle() in swizzle.hpp. Nothing else in the kernel changed.
//
// What to look for: padding fixed the column read of step 03 by shifting each row one bank
// further; it costs a column of shared memory and breaks the 16-byte alignment of rows,
// which is why step 06's padded tile needs scalar shared stores. An XOR swizzle spreads a
// column over the banks too, but keeps every row dense and every 16-byte chunk aligned:
// the 16-byte path stores a whole vector into shared memory with one instruction, and the
// gather down a column stays conflict-free (for float; for double, 16 lanes gather 8-byte
// words out of pairs that the chunk keeps together, and a 2-way conflict remains: run
// --dtype double --explain). The scalar path uses the simple form, column XOR row.
//
// Expected effect: the same speed as padding where padding was already conflict-free, with
// 3% less shared memory and 16-byte shared stores (docs/07-swizzle.md).
//
// Run:   07-swizzle
//        07-swizzle --variant all --explain

#include "07-swizzle/swizzle.hpp"

#include <cstdint>

namespace step07 {

using tt::Coord;
using tt::Pack;

constexpr int TILE = 32;  ///< Tile side in elements.
constexpr int ROWS = 8;   ///< Thread rows per block: 4 passes over the tile.

// --- Index arithmetic: the kernel calls these, and so does --explain. -------------------

/// Shared-memory slot of tile element (r, c), 16-byte path: dense rows, 16-byte chunks
/// swizzled by groups of V rows (V elements per chunk).
template <typename T>
TT_HD constexpr int tile_index(int r, int c) {
  return r * TILE + swizzle(r, c, TILE, Pack<T>::size, Pack<T>::size);
}

/// Shared-memory slot of tile element (r, c), scalar path: the simple form, c ^ r.
TT_HD constexpr int tile_index_scalar(int r, int c) { return r * TILE + swizzle(r, c, TILE, 1, 1); }

/// First input element of the vector thread (x, y) loads in the pass starting at row j.
template <typename T>
TT_HD inline Coord load_coord(uint3 block, uint3 thread, int j) {
  return {static_cast<int>(block.y * TILE + thread.y) + j,
          static_cast<int>(block.x * TILE + thread.x * Pack<T>::size)};
}

/// First output element of the vector thread (x, y) stores in the pass starting at row j.
template <typename T>
TT_HD inline Coord store_coord(uint3 block, uint3 thread, int j) {
  return {static_cast<int>(block.x * TILE + thread.y) + j,
          static_cast<int>(block.y * TILE + thread.x * Pack<T>::size)};
}

/// Scalar path: the tile element that the block's thread number @p i covers, row by row.
TT_HD inline Coord scalar_tile_coord(int i) { return {i / TILE, i % TILE}; }

// --- The kernel. -------------------------------------------------------------------------

/// VECTOR: 16-byte global and shared accesses (the launcher checks alignment).
template <bool VECTOR, typename T>
__global__ void transpose_swizzled(const T* __restrict__ in, T* __restrict__ out, int rows,
                                   int cols) {
  constexpr int V = Pack<T>::size;
  __shared__ alignas(16) T tile[TILE * TILE];  // dense: no padding

  if constexpr (VECTOR) {
#pragma unroll
    for (int j = 0; j < TILE; j += ROWS) {
      const Coord src = load_coord<T>(blockIdx, threadIdx, j);
      const int r = threadIdx.y + j, c = threadIdx.x * V;
      if (src.row < rows && src.col < cols) {  // one 16-byte load, one 16-byte store
        *reinterpret_cast<Pack<T>*>(&tile[tile_index<T>(r, c)]) =
            *reinterpret_cast<const Pack<T>*>(&in[tt::offset(src.row, src.col, cols)]);
      }
    }
  } else {
    const int threads = blockDim.x * blockDim.y;
    for (int i = threadIdx.y * blockDim.x + threadIdx.x; i < TILE * TILE; i += threads) {
      const Coord e = scalar_tile_coord(i);
      const Coord src{static_cast<int>(blockIdx.y) * TILE + e.row,
                      static_cast<int>(blockIdx.x) * TILE + e.col};
      if (tt::inside(src, rows, cols))
        tile[tile_index_scalar(e.row, e.col)] = in[tt::offset(src.row, src.col, cols)];
    }
  }
  __syncthreads();

  if constexpr (VECTOR) {
#pragma unroll
    for (int j = 0; j < TILE; j += ROWS) {
      const Coord dst = store_coord<T>(blockIdx, threadIdx, j);
      const int r = threadIdx.x * V, c = threadIdx.y + j;
      if (dst.row < cols && dst.col < rows) {
        Pack<T> p;
#pragma unroll
        for (int k = 0; k < V; ++k) p.e[k] = tile[tile_index<T>(r + k, c)];  // a column
        *reinterpret_cast<Pack<T>*>(&out[tt::offset(dst.row, dst.col, rows)]) = p;
      }
    }
  } else {
    const int threads = blockDim.x * blockDim.y;
    for (int i = threadIdx.y * blockDim.x + threadIdx.x; i < TILE * TILE; i += threads) {
      const Coord e = scalar_tile_coord(i);
      const Coord dst{static_cast<int>(blockIdx.x) * TILE + e.row,
                      static_cast<int>(blockIdx.y) * TILE + e.col};
      if (tt::inside(dst, cols, rows))
        out[tt::offset(dst.row, dst.col, rows)] = tile[tile_index_scalar(e.col, e.row)];
    }
  }
}

// --- Launchers and description. ----------------------------------------------------------

template <typename T>
bool vector_ok(const T* in, const T* out, tt::Shape s) {
  constexpr int V = Pack<T>::size;
  return reinterpret_cast<std::uintptr_t>(in) % 16 == 0 &&
         reinterpret_cast<std::uintptr_t>(out) % 16 == 0 && s.cols % V == 0 && s.rows % V == 0;
}

/// FORCE_SCALAR: the "scalar" variant, which always takes the scalar path.
template <bool FORCE_SCALAR, typename T>
void run(const tt::LaunchPlan& p, const T* in, T* out, tt::Shape s, cudaStream_t stream) {
  const int rows = static_cast<int>(s.rows), cols = static_cast<int>(s.cols);
  if (!FORCE_SCALAR && vector_ok(in, out, s)) {
    transpose_swizzled<true, T><<<p.grid, p.block, 0, stream>>>(in, out, rows, cols);
  } else {
    transpose_swizzled<false, T><<<p.grid, p.block, 0, stream>>>(in, out, rows, cols);
  }
}

template <bool FORCE_SCALAR, typename T>
tt::LaunchPlan plan_typed(const tt::Problem& pb) {
  constexpr int V = Pack<T>::size;
  constexpr int passes = TILE / ROWS;
  constexpr std::int64_t size = sizeof(T);
  const int rows = static_cast<int>(pb.shape.rows), cols = static_cast<int>(pb.shape.cols);
  tt::LaunchPlan p;
  p.block = dim3(TILE / V, ROWS);
  p.grid = dim3(static_cast<unsigned>(tt::ceil_div(cols, TILE)),
                static_cast<unsigned>(tt::ceil_div(rows, TILE)));
  p.shared_bytes = TILE * TILE * sizeof(T);
  using Pos = tt::ThreadPos;
  using Addr = std::optional<std::int64_t>;
  [[maybe_unused]] const int scalar = static_cast<int>(size);

  if (FORCE_SCALAR || pb.shape.cols % V != 0 || pb.shape.rows % V != 0) {
    const int threads = TILE / V * ROWS;
    [[maybe_unused]] const int iters = TILE * TILE / threads;
    const auto elem = [=](const Pos& t) {
      return scalar_tile_coord(static_cast<int>(t.thread.y * (TILE / V) + t.thread.x) +
                               t.iteration * threads);
    };
    const auto src = [=](const Pos& t) {
      const Coord e = elem(t);
      return Coord{static_cast<int>(t.block.y) * TILE + e.row, static_cast<int>(t.block.x) * TILE + e.col};
    };
    const auto dst = [=](const Pos& t) {
      const Coord e = elem(t);
      return Coord{static_cast<int>(t.block.x) * TILE + e.row, static_cast<int>(t.block.y) * TILE + e.col};
    };
    p.accesses.push_back({"in[offset(src.row, src.col, cols)]", tt::Space::global, tt::Op::load,
                          scalar, iters, [=](const Pos& t) -> Addr {
                            if (!tt::inside(src(t), rows, cols)) return std::nullopt;
                            return tt::offset(src(t).row, src(t).col, cols) * size;
                          }});
    p.accesses.push_back({"tile[tile_index_scalar(e.row, e.col)] = ...", tt::Space::shared,
                          tt::Op::store, scalar, iters, [=](const Pos& t) -> Addr {
                            if (!tt::inside(src(t), rows, cols)) return std::nullopt;
                            return tile_index_scalar(elem(t).row, elem(t).col) * size;
                          }});
    p.accesses.push_back({"tile[tile_index_scalar(e.col, e.row)]", tt::Space::shared,
                          tt::Op::load, scalar, iters, [=](const Pos& t) -> Addr {
                            if (!tt::inside(dst(t), cols, rows)) return std::nullopt;
                            return tile_index_scalar(elem(t).col, elem(t).row) * size;
                          }});
    p.accesses.push_back({"out[offset(dst.row, dst.col, rows)] = ...", tt::Space::global,
                          tt::Op::store, scalar, iters, [=](const Pos& t) -> Addr {
                            if (!tt::inside(dst(t), cols, rows)) return std::nullopt;
                            return tt::offset(dst(t).row, dst(t).col, rows) * size;
                          }});
    return p;
  }

  const auto src = [](const Pos& t, int pass) { return load_coord<T>(t.block, t.thread, pass * ROWS); };
  const auto dst = [](const Pos& t, int pass) { return store_coord<T>(t.block, t.thread, pass * ROWS); };
  p.accesses.push_back({"*(const Pack<T>*)&in[offset(src.row, src.col, cols)]",
                        tt::Space::global, tt::Op::load, 16, passes, [=](const Pos& t) -> Addr {
                          const Coord c = src(t, t.iteration);
                          if (!tt::inside(c, rows, cols)) return std::nullopt;
                          return tt::offset(c.row, c.col, cols) * size;
                        }});
  p.accesses.push_back({"*(Pack<T>*)&tile[tile_index(r, c)] = ...", tt::Space::shared,
                        tt::Op::store, 16, passes, [=](const Pos& t) -> Addr {
                          if (!tt::inside(src(t, t.iteration), rows, cols)) return std::nullopt;
                          return tile_index<T>(static_cast<int>(t.thread.y) + t.iteration * ROWS,
                                               static_cast<int>(t.thread.x) * V) * size;
                        }});
  p.accesses.push_back({"p.e[k] = tile[tile_index(r + k, c)]", tt::Space::shared, tt::Op::load,
                        scalar, passes * V, [=](const Pos& t) -> Addr {
                          const int pass = t.iteration / V, k = t.iteration % V;
                          if (!tt::inside(dst(t, pass), cols, rows)) return std::nullopt;
                          return tile_index<T>(static_cast<int>(t.thread.x) * V + k,
                                               static_cast<int>(t.thread.y) + pass * ROWS) * size;
                        }});
  p.accesses.push_back({"*(Pack<T>*)&out[offset(dst.row, dst.col, rows)] = p", tt::Space::global,
                        tt::Op::store, 16, passes, [=](const Pos& t) -> Addr {
                          const Coord c = dst(t, t.iteration);
                          if (!tt::inside(c, cols, rows)) return std::nullopt;
                          return tt::offset(c.row, c.col, rows) * size;
                        }});
  return p;
}

template <bool FORCE_SCALAR>
tt::LaunchPlan plan(const tt::Problem& pb) {
  return pb.dtype == tt::DType::f32 ? plan_typed<FORCE_SCALAR, float>(pb)
                                    : plan_typed<FORCE_SCALAR, double>(pb);
}

const tt::Step& step() {
  static const tt::Step s = [] {
    tt::Step st;
    st.id = "07-swizzle";
    st.title = "XOR-swizzled dense tile: 16-byte shared stores, conflict-free gathers";
    st.variants = {
        {"chunked", "16-byte path with 16-byte chunks swizzled (scalar path where misaligned)",
         tt::Expect::transpose, plan<false>, run<false, float>, run<false, double>},
        {"scalar", "always the scalar path, with the simple swizzle c ^ r",
         tt::Expect::transpose, plan<true>, run<true, float>, run<true, double>},
    };
    st.default_variant = "chunked";
    return st;
  }();
  return s;
}

}  // namespace step07
