// Step 09: alignment is a property of addresses, not of indices.
//
// What changed since 08: where a block's tile starts. A 32-byte sector of the output holds 8
// floats (4 doubles), and the output's row c starts at element c * rows. When rows is not a
// multiple of 8 (4099 x 8191 float), steps 07 and 08 cut every output row into 64-element
// pieces at multiples of 64 *in the row*, which are not multiples of 8 *in memory*: each
// piece begins and ends inside a sector that the neighbouring block writes the rest of, and
// two blocks write parts of one sector at different times. Here each block starts its piece
// of output row c at that row's first sector boundary, head(c), so that every piece is whole
// sectors; the sectors that two rows share (and the matrix's last one) are written by a row of
// seam blocks, one lane group a sector (alignment.cuh). Where the output rows are whole
// sectors already, the step runs step 08's column-order kernel unchanged.
//
// The kernel is step 06's (06-float4/float4.cuh); only the moves are new.
//
// Expected effect: see docs/09-alignment.md. No output sector is written in part by two
// blocks (--explain's partial-sector lines say so); whether that pays for the 8 extra input
// rows a block loads (12.5% more loads, from the L2 cache) is what the chapter measures.
//
// Run:   09-alignment --rows 4099 --cols 8191
//        09-alignment --rows 4099 --cols 8191 --explain

#include "09-alignment/alignment.hpp"

#include "06-float4/float4.cuh"
#include "09-alignment/alignment.cuh"

namespace step09 {

template <class W>
using Path = tt::Path<W, step06::transpose_vec<W>>;

const tt::Step& step() {
  static const tt::Step s = [] {
    tt::Step st;
    st.id = "09-alignment";
    st.title = "Tiles placed by address: every output sector written whole, at any shape";
    st.variants = {
        tt::variant<Path<Column<float>>, Path<Skewed<float>>, Path<Column<double>>,
                    Path<Skewed<double>>>(
            "sectors",
            "step 08's column kernel where output rows are whole sectors, else the skewed tiles"),
        tt::variant<Path<Skewed<float>>, Path<Skewed<double>>>(
            "skewed", "always the skewed tiles: 72 x 64 input rows, whole output sectors, seams"),
    };
    st.default_variant = "all";
    st.headline = "sectors";
    return st;
  }();
  return s;
}

}  // namespace step09
