// Step 07: swizzle the tile instead of padding it, and let the tile grow.
//
// What changed since 06: where a vector goes in the tile. The kernel is step 06's
// (06-float4/float4.cuh); the moves are new (swizzle.cuh). The tile is dense again (no padding
// column), and each element's column is permuted by an XOR with a function of its row, see
// swizzle(). Because a swizzled row keeps every 16-byte chunk whole and aligned, the load
// phase writes each vector into the tile with one 16-byte store, as step 06's "unpadded"
// variant did, while the gather down a column stays conflict-free, for float and for double.
//
// The variants: "tile32" is step 06's 32 x 32 tile and 256 threads with the swizzle in place
// of the padding (only the layout changed). "tile64" lets the tile grow, which a padded tile
// makes awkward (a padded row is not 16-byte aligned): a 64 x 64 tile (16 KB of float) moved
// by 512 threads in a one-dimensional block, each warp reading whole 256-byte row segments,
// two vectors (float) or four (double) a thread. "tile64-256" moves the same tile with 256
// threads: twice the vectors, so twice the bytes, in flight per thread. "scalar" always takes
// the scalar path (below).
//
// The scalar path (rows that are not a multiple of the vector, such as 4099 x 8191, or
// pointers that are not 16-byte aligned) moves one element at a time with the simple form of
// the swizzle, column XOR row, and 1024 threads for a 64 x 64 tile.
//
// Expected effect: tile32 as fast as step 06's padded tile (the padding was already
// conflict-free, and both hold 16 bytes a thread in flight); the 64 x 64 variants hold more
// bytes in flight per thread and per barrier (docs/07-swizzle.md predicts and measures).
//
// Run:   07-swizzle
//        07-swizzle --variant all --explain

#include "07-swizzle/swizzle.hpp"

#include "06-float4/float4.cuh"
#include "07-swizzle/swizzle.cuh"

namespace step07 {

template <class W>
using Path = tt::Path<W, step06::transpose_vec<W>>;

/// TILE x TILE tiles: VT threads on the 16-byte path, ST on the scalar path.
template <int TILE, int VT, int ST>
tt::Variant variant(const char* name, const char* summary) {
  return tt::variant<Path<Swizzled<float, TILE, VT>>, Path<SwizzledScalar<float, TILE, ST>>,
                     Path<Swizzled<double, TILE, VT>>, Path<SwizzledScalar<double, TILE, ST>>>(
      name, summary);
}

const tt::Step& step() {
  static const tt::Step s = [] {
    tt::Step st;
    st.id = "07-swizzle";
    st.title = "XOR-swizzled dense tile: 16-byte shared stores, conflict-free gathers";
    st.variants = {
        variant<64, 512, 1024>(
            "tile64", "64 x 64 swizzled tile, 512 threads (scalar path: 1024, column XOR row)"),
        variant<64, 256, 1024>("tile64-256",
                               "64 x 64 swizzled tile, 256 threads: twice the vectors a thread"),
        variant<32, 256, 256>(
            "tile32", "32 x 32 swizzled tile, 256 threads: step 06's shape, swizzle for padding"),
        tt::variant<Path<SwizzledScalar<float, 64, 1024>>, Path<SwizzledScalar<double, 64, 1024>>>(
            "scalar", "always the scalar path: 64 x 64 tile, 1024 threads, column XOR row"),
    };
    st.default_variant = "tile64";
    return st;
  }();
  return s;
}

}  // namespace step07
