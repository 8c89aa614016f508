// Step 08: the order of the blocks.
//
// What changed since 07: which tile a block moves. The grid is one-dimensional, so that a
// block's number b is simply blockIdx.x and the order in which blocks start is the order of
// b. Ordered<W, ORDER> (diagonal.cuh) gives block b the tile ORDER::tile_of(b) (diagonal.hpp) and
// then makes step 07's moves for that tile: the kernel is step 06's, the moves and the swizzled 64
// x 64 tile are step 07's (swizzle.cuh); only the block-to-tile mapping is new.
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

#include "06-float4/float4.cuh"
#include "07-swizzle/swizzle.cuh"
#include "08-diagonal/diagonal.cuh"

namespace step08 {

template <class W>
using Path = tt::Path<W, step06::transpose_vec<W>>;

/// Step 07's tile64: 512 threads on the 16-byte path, 1024 on the scalar path, in ORDER.
template <class ORDER>
tt::Variant variant(const char* name, const char* summary) {
  using step07::Swizzled;
  using step07::SwizzledScalar;
  return tt::variant<Path<Ordered<Swizzled<float, 64, 512>, ORDER>>,
                     Path<Ordered<SwizzledScalar<float, 64, 1024>, ORDER>>,
                     Path<Ordered<Swizzled<double, 64, 512>, ORDER>>,
                     Path<Ordered<SwizzledScalar<double, 64, 1024>, ORDER>>>(name, summary);
}

const tt::Step& step() {
  static const tt::Step s = [] {
    tt::Step st;
    st.id = "08-diagonal";
    st.title = "Block order (row, diagonal, column) on step 07's 64 x 64 swizzled kernel";
    st.variants = {
        variant<ColumnOrder>(
            "column",
            "blocks walk down the input's tile columns: output rows are written in order"),
        variant<DiagonalOrder>(
            "diagonal",
            "blocks walk the tile diagonals (the classic remedy for partition camping)"),
        variant<RowOrder>("row", "blocks walk the input's tile rows: step 07's order"),
    };
    st.default_variant = "all";
    st.headline = "column";
    return st;
  }();
  return s;
}

}  // namespace step08
