// Step 06: 16-byte global loads and stores (float4 for float, double2 for double).
//
// What changed since 05: each thread now moves its elements with one 16-byte instruction on
// each global side instead of several 4-byte ones. A thread takes V = 16 / sizeof(T)
// consecutive elements of a tile row (V = 4 for float, 2 for double), so a 32-element tile
// row is read by 32 / V threads and the block is (32 / V) x 32 threads, one pass over the
// 32 x 32 tile. For float that is 256 threads moving 4 elements each, exactly step 05's
// default: only the instruction width changed. On the way out, a thread gathers V elements
// down a tile column (V consecutive input rows) and stores them as one vector of the output.
//
// What to look for: the global side needs a quarter (float) or half (double) of the
// instructions for the same sectors. The shared side is where the choice is. Unpadded
// ("unpadded"), a row store can be one 16-byte STS, but the column gather of a warp hits
// 4 banks 8 times each: an 8-way conflict (the well-known float4 transpose). Padded to
// 33 ("padded", the default), the gather is conflict-free for float, but rows are no longer
// 16-byte aligned in shared memory, so the row side stores V scalars. For double, the
// scalar stores and gathers of a padded tile keep a 2-way conflict: --explain shows both.
//
// Alignment: the 16-byte path needs both pointers 16-byte aligned and both row lengths a
// multiple of V. Otherwise (a 4099 x 8191 matrix, a pointer one element into an array) the
// same kernel runs its scalar path: correct for any shape, with scalar accesses.
//
// Expected effect: fewer instructions for the same bytes. Whether that is faster is a
// measurement, not a given: docs/06-float4.md compares it with step 05 in the same run.
//
// Run:   06-float4
//        06-float4 --variant all --explain     # the 8-way conflict and its fix

#include "06-float4/float4.hpp"

#include <cstdint>

#include "types.hpp"

namespace step06 {

using tt::Coord;
using tt::Pack;

constexpr int TILE = 32;  ///< Tile side in elements.
constexpr int ROWS = 32;  ///< Thread rows per block: one pass over the tile.

// --- Index arithmetic: the kernel calls these, and so does --explain. -------------------

/// Shared-memory slot of tile element (r, c): 33 elements a row when PADDED, else 32.
template <bool PADDED>
TT_HD constexpr int tile_index(int r, int c) {
  return r * (TILE + (PADDED ? 1 : 0)) + c;
}

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

/// Scalar path: the tile element that the block's thread number @p i covers, row by row,
/// so that consecutive lanes touch consecutive elements.
TT_HD inline Coord scalar_tile_coord(int i) {
  return {i / TILE, i % TILE};
}

// --- The kernel. -------------------------------------------------------------------------

/// VECTOR: 16-byte global accesses (the launcher checks alignment); otherwise V scalars.
template <bool PADDED, bool VECTOR, typename T>
__global__ void transpose_vec(const T* __restrict__ in, T* __restrict__ out, int rows, int cols) {
  constexpr int V = Pack<T>::size;
  __shared__ alignas(16) T tile[TILE * (TILE + (PADDED ? 1 : 0))];

  if constexpr (VECTOR) {
#pragma unroll
    for (int j = 0; j < TILE; j += ROWS) {
      const Coord src = load_coord<T>(blockIdx, threadIdx, j);
      const int r = threadIdx.y + j, c = threadIdx.x * V;  // position in the tile
      if (src.row < rows && src.col < cols) {              // cols % V == 0: a vector is in or out
        const Pack<T> p =
            *reinterpret_cast<const Pack<T>*>(&in[tt::offset(src.row, src.col, cols)]);
        if constexpr (PADDED) {  // rows of 33 are not 16-byte aligned: V scalar stores
#pragma unroll
          for (int k = 0; k < V; ++k) tile[tile_index<PADDED>(r, c + k)] = p.e[k];
        } else {  // one 16-byte store
          *reinterpret_cast<Pack<T>*>(&tile[tile_index<PADDED>(r, c)]) = p;
        }
      }
    }
  } else {
    // Scalar path: thread i takes tile elements i, i + threads, ... (coalesced).
    const int threads = blockDim.x * blockDim.y;
    for (int i = threadIdx.y * blockDim.x + threadIdx.x; i < TILE * TILE; i += threads) {
      const Coord e = scalar_tile_coord(i);
      const Coord src{static_cast<int>(blockIdx.y) * TILE + e.row,
                      static_cast<int>(blockIdx.x) * TILE + e.col};
      if (tt::inside(src, rows, cols))
        tile[tile_index<PADDED>(e.row, e.col)] = in[tt::offset(src.row, src.col, cols)];
    }
  }
  __syncthreads();

  if constexpr (VECTOR) {
#pragma unroll
    for (int j = 0; j < TILE; j += ROWS) {
      const Coord dst = store_coord<T>(blockIdx, threadIdx, j);
      const int r = threadIdx.x * V, c = threadIdx.y + j;  // first tile element of the gather
      if (dst.row < cols && dst.col < rows) {              // rows % V == 0: a vector is in or out
        Pack<T> p;
#pragma unroll
        for (int k = 0; k < V; ++k) p.e[k] = tile[tile_index<PADDED>(r + k, c)];  // a column
        *reinterpret_cast<Pack<T>*>(&out[tt::offset(dst.row, dst.col, rows)]) = p;
      }
    }
  } else {
    // Scalar path: output element (e.row, e.col) of the block's tile is tile(e.col, e.row).
    const int threads = blockDim.x * blockDim.y;
    for (int i = threadIdx.y * blockDim.x + threadIdx.x; i < TILE * TILE; i += threads) {
      const Coord e = scalar_tile_coord(i);
      const Coord dst{static_cast<int>(blockIdx.x) * TILE + e.row,
                      static_cast<int>(blockIdx.y) * TILE + e.col};
      if (tt::inside(dst, cols, rows))
        out[tt::offset(dst.row, dst.col, rows)] = tile[tile_index<PADDED>(e.col, e.row)];
    }
  }
}

// --- Launchers and description. ----------------------------------------------------------

/// Whether the 16-byte path may run: aligned pointers, both row lengths multiples of V.
template <typename T>
bool vector_ok(const T* in, const T* out, tt::Shape s) {
  constexpr int V = Pack<T>::size;
  return reinterpret_cast<std::uintptr_t>(in) % 16 == 0 &&
         reinterpret_cast<std::uintptr_t>(out) % 16 == 0 && s.cols % V == 0 && s.rows % V == 0;
}

template <bool PADDED, typename T>
void run(const tt::LaunchPlan& p, const T* in, T* out, tt::Shape s, cudaStream_t stream) {
  const int rows = static_cast<int>(s.rows), cols = static_cast<int>(s.cols);
  if (vector_ok(in, out, s)) {
    transpose_vec<PADDED, true, T><<<p.grid, p.block, 0, stream>>>(in, out, rows, cols);
  } else {
    transpose_vec<PADDED, false, T><<<p.grid, p.block, 0, stream>>>(in, out, rows, cols);
  }
}

template <bool PADDED, typename T>
tt::LaunchPlan plan_typed(const tt::Problem& pb) {
  constexpr int V = Pack<T>::size;
  constexpr int passes = TILE / ROWS;
  constexpr std::int64_t size = sizeof(T);
  const int rows = static_cast<int>(pb.shape.rows), cols = static_cast<int>(pb.shape.cols);
  tt::LaunchPlan p;
  p.block = dim3(TILE / V, ROWS);
  p.grid = dim3(static_cast<unsigned>(tt::ceil_div(cols, TILE)),
                static_cast<unsigned>(tt::ceil_div(rows, TILE)));
  p.shared_bytes = TILE * (TILE + (PADDED ? 1 : 0)) * sizeof(T);
  using Pos = tt::ThreadPos;
  using Addr = std::optional<std::int64_t>;
  [[maybe_unused]] const int scalar = static_cast<int>(size);

  // cudaMalloc'd buffers are aligned, so the row lengths decide the path.
  if (pb.shape.cols % V != 0 || pb.shape.rows % V != 0) {
    // Scalar path: iteration q covers tile element i = thread + q * threads.
    const int threads = TILE / V * ROWS;
    const auto elem = [=](const Pos& t) {
      return scalar_tile_coord(static_cast<int>(t.thread.y * (TILE / V) + t.thread.x) +
                               t.iteration * threads);
    };
    const auto src = [=](const Pos& t) {
      const Coord e = elem(t);
      return Coord{static_cast<int>(t.block.y) * TILE + e.row,
                   static_cast<int>(t.block.x) * TILE + e.col};
    };
    const auto dst = [=](const Pos& t) {
      const Coord e = elem(t);
      return Coord{static_cast<int>(t.block.x) * TILE + e.row,
                   static_cast<int>(t.block.y) * TILE + e.col};
    };
    [[maybe_unused]] const int iters = TILE * TILE / threads;
    p.accesses = {
        {"in[offset(src.row, src.col, cols)]", tt::Space::global, tt::Op::load, scalar, iters,
         [=](const Pos& t) -> Addr {
           if (!tt::inside(src(t), rows, cols)) return std::nullopt;
           return tt::offset(src(t).row, src(t).col, cols) * size;
         }},
        {"tile[tile_index(e.row, e.col)] = ...", tt::Space::shared, tt::Op::store, scalar, iters,
         [=](const Pos& t) -> Addr {
           if (!tt::inside(src(t), rows, cols)) return std::nullopt;
           return tile_index<PADDED>(elem(t).row, elem(t).col) * size;
         }},
        {"tile[tile_index(e.col, e.row)]", tt::Space::shared, tt::Op::load, scalar, iters,
         [=](const Pos& t) -> Addr {
           if (!tt::inside(dst(t), cols, rows)) return std::nullopt;
           return tile_index<PADDED>(elem(t).col, elem(t).row) * size;
         }},
        {"out[offset(dst.row, dst.col, rows)] = ...", tt::Space::global, tt::Op::store, scalar,
         iters,
         [=](const Pos& t) -> Addr {
           if (!tt::inside(dst(t), cols, rows)) return std::nullopt;
           return tt::offset(dst(t).row, dst(t).col, rows) * size;
         }},
    };
    return p;
  }

  // 16-byte path. Iteration q of a vector access is pass q; of a scalar shared access,
  // pass q / V and element q % V of the vector.
  const auto src = [](const Pos& t, int pass) {
    return load_coord<T>(t.block, t.thread, pass * ROWS);
  };
  const auto dst = [](const Pos& t, int pass) {
    return store_coord<T>(t.block, t.thread, pass * ROWS);
  };
  p.accesses.push_back({"*(const Pack<T>*)&in[offset(src.row, src.col, cols)]", tt::Space::global,
                        tt::Op::load, 16, passes, [=](const Pos& t) -> Addr {
                          const Coord c = src(t, t.iteration);
                          if (!tt::inside(c, rows, cols)) return std::nullopt;
                          return tt::offset(c.row, c.col, cols) * size;
                        }});
  // Padded: V scalar stores per vector (iteration = pass * V + k). Unpadded: one 16-byte store.
  const int sts_width = PADDED ? scalar : 16, sts_iters = PADDED ? passes * V : passes;
  p.accesses.push_back(
      {PADDED ? "tile[tile_index(r, c + k)] = p.e[k]" : "*(Pack<T>*)&tile[tile_index(r, c)] = p",
       tt::Space::shared, tt::Op::store, sts_width, sts_iters, [=](const Pos& t) -> Addr {
         const int pass = PADDED ? t.iteration / V : t.iteration;
         const int k = PADDED ? t.iteration % V : 0;
         if (!tt::inside(src(t, pass), rows, cols)) return std::nullopt;
         return tile_index<PADDED>(static_cast<int>(t.thread.y) + pass * ROWS,
                                   static_cast<int>(t.thread.x) * V + k) *
                size;
       }});
  p.accesses.push_back({"p.e[k] = tile[tile_index(r + k, c)]", tt::Space::shared, tt::Op::load,
                        scalar, passes * V, [=](const Pos& t) -> Addr {
                          const int pass = t.iteration / V, k = t.iteration % V;
                          if (!tt::inside(dst(t, pass), cols, rows)) return std::nullopt;
                          return tile_index<PADDED>(static_cast<int>(t.thread.x) * V + k,
                                                    static_cast<int>(t.thread.y) + pass * ROWS) *
                                 size;
                        }});
  p.accesses.push_back({"*(Pack<T>*)&out[offset(dst.row, dst.col, rows)] = p", tt::Space::global,
                        tt::Op::store, 16, passes, [=](const Pos& t) -> Addr {
                          const Coord c = dst(t, t.iteration);
                          if (!tt::inside(c, cols, rows)) return std::nullopt;
                          return tt::offset(c.row, c.col, rows) * size;
                        }});
  return p;
}

template <bool PADDED>
tt::LaunchPlan plan(const tt::Problem& pb) {
  return pb.dtype == tt::DType::f32 ? plan_typed<PADDED, float>(pb)
                                    : plan_typed<PADDED, double>(pb);
}

const tt::Step& step() {
  static const tt::Step s = [] {
    tt::Step st;
    st.id = "06-float4";
    st.title = "16-byte global accesses: float4 / double2 on both sides";
    st.variants = {
        {"padded", "32 x 33 tile: conflict-free float gather, scalar shared stores",
         tt::Expect::transpose, plan<true>, run<true, float>, run<true, double>},
        {"unpadded", "32 x 32 tile: 16-byte shared stores, 8-way conflict on the gather",
         tt::Expect::transpose, plan<false>, run<false, float>, run<false, double>},
    };
    st.default_variant = "padded";
    return st;
  }();
  return s;
}

}  // namespace step06
