// Step 07: swizzle the tile instead of padding it, and let the tile grow.
//
// What changed since 06: the tile layout. The tile is dense again (no padding column), and
// each element's column is permuted by an XOR with (a function of) its row, see swizzle() in
// swizzle.hpp. The index arithmetic moved into swizzle.hpp (step 08 reuses it), and the
// block became one-dimensional: Geometry says which thread moves which vector.
//
// What to look for: padding fixed step 03's column read by shifting each row one bank
// further; it costs a column of shared memory and breaks the 16-byte alignment of rows,
// which is why step 06's padded tile needs scalar shared stores. An XOR swizzle spreads a
// column over the banks too, but keeps every row dense and every 16-byte chunk aligned: the
// 16-byte path stores a whole vector into shared memory with one instruction, and the gather
// down a column stays conflict-free, for float and for double. Because nothing is wasted and
// alignment holds for any width, the tile can grow: "tile64" moves a 64 x 64 tile (16 KB of
// float) with 512 threads, each warp reading whole 256-byte row segments. "tile32" is step
// 06's 32 x 32 tile and 256 threads with the swizzle in place of the padding.
//
// The scalar path (rows that are not a multiple of the vector, such as 4099 x 8191, or
// pointers that are not 16-byte aligned) uses the simple form, column XOR row, with 1024
// threads a 64 x 64 tile; the "scalar" variant takes that path for every shape.
//
// Expected effect: tile32 as fast as step 06's padded tile (the padding was already
// conflict-free); tile64 closer to the copy, because each block moves four times the bytes
// between two barriers (docs/07-swizzle.md has the measurements).
//
// Run:   07-swizzle
//        07-swizzle --variant all --explain

#include "07-swizzle/swizzle.hpp"

namespace step07 {

using tt::Coord;
using tt::Pack;

// --- The kernel. -------------------------------------------------------------------------

/// G: the tile and thread geometry. VECTOR: 16-byte global and shared accesses (the
/// launcher checks alignment); otherwise one element at a time.
template <typename T, class G, bool VECTOR>
__global__ void __launch_bounds__(G::kThreads)
    transpose_swizzled(const T* __restrict__ in, T* __restrict__ out, int rows, int cols) {
  constexpr int TILE = G::kTile;
  __shared__ alignas(16) T tile[TILE * TILE];  // dense: no padding
  const int t = threadIdx.x;
  const int tile_row = blockIdx.y * TILE, tile_col = blockIdx.x * TILE;  // in the input

  if constexpr (VECTOR) {
#pragma unroll
    for (int pass = 0; pass < G::kLoadPasses; ++pass) {
      const Coord s = load_slot<G>(t, pass);
      const Coord src{tile_row + s.row, tile_col + s.col};
      if (src.row < rows && src.col < cols) {  // one 16-byte load, one 16-byte store
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
      const Coord s = store_slot<G>(t, pass);  // s.row is a tile column
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
      const Coord s = scalar_slot<G>(t, pass);  // a position in the output tile
      const Coord dst{tile_col + s.row, tile_row + s.col};
      if (tt::inside(dst, cols, rows))
        out[tt::offset(dst.row, dst.col, rows)] = tile[tile_index_scalar<G>(s.col, s.row)];
    }
  }
}

// --- Launchers and description. ----------------------------------------------------------

/// G: the 16-byte path's geometry; S: the scalar path's (used when the rows are not a
/// multiple of the vector, and always when FORCE_SCALAR).
template <typename T, class G, class S, bool FORCE_SCALAR>
void run(const tt::LaunchPlan& p, const T* in, T* out, tt::Shape s, cudaStream_t stream) {
  const int rows = static_cast<int>(s.rows), cols = static_cast<int>(s.cols);
  if (!FORCE_SCALAR && vector_ok(in, out, s)) {
    transpose_swizzled<T, G, true><<<p.grid, p.block, 0, stream>>>(in, out, rows, cols);
  } else if (p.block.x == S::kThreads) {
    transpose_swizzled<T, S, false><<<p.grid, p.block, 0, stream>>>(in, out, rows, cols);
  } else {  // rows fit the vector but a pointer does not: the plan's block, scalar
    transpose_swizzled<T, G, false><<<p.grid, p.block, 0, stream>>>(in, out, rows, cols);
  }
}

using Addr = std::optional<std::int64_t>;
using Pos = tt::ThreadPos;

/// Where block @p b's tile starts in the input (row, column).
template <int TILE>
Coord tile_origin(uint3 b) {
  return {static_cast<int>(b.y) * TILE, static_cast<int>(b.x) * TILE};
}

/// The four accesses of the scalar path with geometry S.
template <typename T, class S>
std::vector<tt::Access> scalar_accesses(int rows, int cols) {
  constexpr std::int64_t size = sizeof(T);
  constexpr int w = static_cast<int>(size), n = S::kScalarPasses;
  const auto src = [](const Pos& t) {
    const Coord o = tile_origin<S::kTile>(t.block), s = scalar_slot<S>(t.thread.x, t.iteration);
    return Coord{o.row + s.row, o.col + s.col};
  };
  const auto dst = [](const Pos& t) {
    const Coord o = tile_origin<S::kTile>(t.block), s = scalar_slot<S>(t.thread.x, t.iteration);
    return Coord{o.col + s.row, o.row + s.col};
  };
  return {
      {"in[offset(src.row, src.col, cols)]", tt::Space::global, tt::Op::load, w, n,
       [=](const Pos& t) -> Addr {
         if (!tt::inside(src(t), rows, cols)) return std::nullopt;
         return tt::offset(src(t).row, src(t).col, cols) * size;
       }},
      {"tile[tile_index_scalar(s.row, s.col)] = ...", tt::Space::shared, tt::Op::store, w, n,
       [=](const Pos& t) -> Addr {
         if (!tt::inside(src(t), rows, cols)) return std::nullopt;
         const Coord s = scalar_slot<S>(t.thread.x, t.iteration);
         return tile_index_scalar<S>(s.row, s.col) * size;
       }},
      {"tile[tile_index_scalar(s.col, s.row)]", tt::Space::shared, tt::Op::load, w, n,
       [=](const Pos& t) -> Addr {
         if (!tt::inside(dst(t), cols, rows)) return std::nullopt;
         const Coord s = scalar_slot<S>(t.thread.x, t.iteration);
         return tile_index_scalar<S>(s.col, s.row) * size;
       }},
      {"out[offset(dst.row, dst.col, rows)] = ...", tt::Space::global, tt::Op::store, w, n,
       [=](const Pos& t) -> Addr {
         if (!tt::inside(dst(t), cols, rows)) return std::nullopt;
         return tt::offset(dst(t).row, dst(t).col, rows) * size;
       }},
  };
}

/// The four accesses of the 16-byte path with geometry G. A shared load's iteration i is
/// pass i / V, element i % V of the gathered vector.
template <typename T, class G>
std::vector<tt::Access> vector_accesses(int rows, int cols) {
  constexpr std::int64_t size = sizeof(T);
  constexpr int V = G::kV;
  const auto src = [](const Pos& t, int pass) {
    const Coord o = tile_origin<G::kTile>(t.block), s = load_slot<G>(t.thread.x, pass);
    return Coord{o.row + s.row, o.col + s.col};
  };
  const auto dst = [](const Pos& t, int pass) {
    const Coord o = tile_origin<G::kTile>(t.block), s = store_slot<G>(t.thread.x, pass);
    return Coord{o.col + s.row, o.row + s.col};
  };
  return {
      {"*(const Pack<T>*)&in[offset(src.row, src.col, cols)]", tt::Space::global, tt::Op::load, 16,
       G::kLoadPasses,
       [=](const Pos& t) -> Addr {
         const Coord c = src(t, t.iteration);
         if (!tt::inside(c, rows, cols)) return std::nullopt;
         return tt::offset(c.row, c.col, cols) * size;
       }},
      {"*(Pack<T>*)&tile[tile_index(s.row, s.col)] = ...", tt::Space::shared, tt::Op::store, 16,
       G::kLoadPasses,
       [=](const Pos& t) -> Addr {
         if (!tt::inside(src(t, t.iteration), rows, cols)) return std::nullopt;
         const Coord s = load_slot<G>(t.thread.x, t.iteration);
         return tile_index<G>(s.row, s.col) * size;
       }},
      {"v.e[k] = tile[tile_index(s.col + k, s.row)]", tt::Space::shared, tt::Op::load,
       static_cast<int>(size), G::kStorePasses * V,
       [=](const Pos& t) -> Addr {
         const int pass = t.iteration / V, k = t.iteration % V;
         if (!tt::inside(dst(t, pass), cols, rows)) return std::nullopt;
         const Coord s = store_slot<G>(t.thread.x, pass);
         return tile_index<G>(s.col + k, s.row) * size;
       }},
      {"*(Pack<T>*)&out[offset(dst.row, dst.col, rows)] = v", tt::Space::global, tt::Op::store, 16,
       G::kStorePasses,
       [=](const Pos& t) -> Addr {
         const Coord c = dst(t, t.iteration);
         if (!tt::inside(c, cols, rows)) return std::nullopt;
         return tt::offset(c.row, c.col, rows) * size;
       }},
  };
}

template <typename T, class G, class S, bool FORCE_SCALAR>
tt::LaunchPlan plan_typed(const tt::Problem& pb) {
  static_assert(G::kTile == S::kTile, "both paths move the same tile");
  constexpr int V = G::kV;
  const int rows = static_cast<int>(pb.shape.rows), cols = static_cast<int>(pb.shape.cols);
  // cudaMalloc'd buffers are aligned, so the row lengths decide the path.
  const bool scalar = FORCE_SCALAR || pb.shape.cols % V != 0 || pb.shape.rows % V != 0;
  tt::LaunchPlan p;
  p.block = dim3(scalar ? S::kThreads : G::kThreads);
  p.grid = dim3(static_cast<unsigned>(tt::ceil_div(cols, G::kTile)),
                static_cast<unsigned>(tt::ceil_div(rows, G::kTile)));
  p.shared_bytes = G::kTile * G::kTile * sizeof(T);
  p.accesses = scalar ? scalar_accesses<T, S>(rows, cols) : vector_accesses<T, G>(rows, cols);
  return p;
}

/// A variant moving TILE x TILE tiles: VT threads on the 16-byte path, ST on the scalar one.
template <int TILE, int VT, int ST, bool FORCE_SCALAR>
tt::Variant variant(const char* name, const char* summary) {
  using GF = Geometry<float, TILE, VT>;
  using SF = Geometry<float, TILE, ST>;
  using GD = Geometry<double, TILE, VT>;
  using SD = Geometry<double, TILE, ST>;
  return {name,
          summary,
          tt::Expect::transpose,
          [](const tt::Problem& pb) {
            return pb.dtype == tt::DType::f32 ? plan_typed<float, GF, SF, FORCE_SCALAR>(pb)
                                              : plan_typed<double, GD, SD, FORCE_SCALAR>(pb);
          },
          run<float, GF, SF, FORCE_SCALAR>,
          run<double, GD, SD, FORCE_SCALAR>};
}

const tt::Step& step() {
  static const tt::Step s = [] {
    tt::Step st;
    st.id = "07-swizzle";
    st.title = "XOR-swizzled dense tile: 16-byte shared stores, conflict-free gathers";
    st.variants = {
        variant<64, 512, 1024, false>(
            "tile64", "64 x 64 swizzled tile, 512 threads (scalar path: 1024, column XOR row)"),
        variant<32, 256, 256, false>(
            "tile32", "32 x 32 swizzled tile, 256 threads: step 06's shape, swizzle for padding"),
        variant<64, 512, 1024, true>(
            "scalar", "always the scalar path: 64 x 64 tile, 1024 threads, column XOR row"),
    };
    st.default_variant = "tile64";
    return st;
  }();
  return s;
}

}  // namespace step07
