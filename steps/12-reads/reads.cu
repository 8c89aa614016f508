// Step 12: read each input sector once, or nearly.
//
// What changed since 10: the load moves and the load phase (reads.cuh). At a shape whose
// output rows are not whole sectors, step 10's blocks ask the L2 for 1.25 sectors (float) or
// 1.18 (double) for each sector of the matrix: a block loads 72 input rows for its 64, and its
// row pieces start inside sectors that the neighbouring block reads too. On the H200, whose
// L2 is the H100's and whose memory is 43% faster, those second reads are what sets the pace.
// Here a block loads only the rows its stores read (71 in float, 67 in double, where rows is
// odd), and in float (variant `wide`) reads 128 columns, so that a row piece's partial
// sectors are 1 in 17 instead of 1 in 9.
//
// The kernel is reads.cuh's transpose_trimmed (step 06's, with the last load pass checked);
// the tiles are step 10's (10-invariants/invariants.cuh) and, where output rows are whole
// sectors, step 08's column kernel's (09-alignment/alignment.cuh).
//
// Expected effect: see docs/12-reads.md.
//
// Run:   12-reads --rows 4099 --cols 8191
//        12-reads --rows 4099 --cols 8191 --variant wide --explain

#include "12-reads/reads.hpp"

#include "06-float4/float4.cuh"
#include "09-alignment/alignment.cuh"
#include "10-invariants/invariants.cuh"
#include "12-reads/reads.cuh"

namespace step12 {

/// Work W, moved by this step's kernel, which checks the cut passes even in whole tiles.
template <class W>
using Path = tt::Path<W, transpose_trimmed<W>, void, false, true>;
/// Work W, moved by step 06's kernel (steps 08 to 10).
template <class W>
using Vec = tt::Path<W, step06::transpose_vec<W>>;

const tt::Step& step() {
  static const tt::Step s = [] {
    tt::Step st;
    st.id = "12-reads";
    st.title = "Fewer sectors read twice: only the rows a store reads, and wider tiles";
    st.variants = {
        tt::variant<Vec<step09::Column<float>>, Path<Trimmed<float>>, Vec<step09::Column<double>>,
                    Path<Trimmed<double>>>(
            "reads",
            "step 08's column kernel where output rows are whole sectors, else the trimmed "
            "tiles (the wide ones measured slower)"),
        tt::variant<Path<Wide<float>>>(
            "wide", "always the trimmed tiles of 72 x 128 (18 loads a thread); float only"),
        tt::variant<Path<Trimmed<float>>, Path<Trimmed<double>>>(
            "trimmed", "always step 10's tiles, each block loading only the rows it stores"),
        tt::variant<Path<TallTrimmed<float>>>(
            "tall",
            "step 11's tiles of 136 x 64, trimmed, loaded through registers (17 a thread); "
            "float only"),
        tt::variant<Vec<step09::Column<float>>, Vec<step10::Lean<float>>,
                    Vec<step09::Column<double>>, Vec<step10::Lean<double>>>(
            "lean", "step 10's kernels as they are, for the comparison in one run"),
    };
    st.default_variant = "all";
    st.headline = "reads";
    return st;
  }();
  return s;
}

}  // namespace step12
