// Step 10: count the instructions.
//
// What changed since 09: only the two move functions (invariants.cuh). Step 09 moves every
// element where it should, with whole output sectors, and on the H100 it runs within a few
// percent of a copy. On the H200, whose memory is 43% faster and whose SMs are the same, it
// stays near 80% of the copy at every shape, the power-of-two ones too. The memory is not
// what stops it: each thread recomputes, in each of its 17 passes, parts of its addresses
// that are the same in every pass, and at the H200's rate the SMs cannot issue those
// instructions fast enough. Here each move is a base computed once plus a constant.
//
// The kernel is step 06's (06-float4/float4.cuh); the tiles, seams and threads are step
// 09's (09-alignment/alignment.cuh). Where the output rows are whole sectors, step 08's
// column kernel runs, as in step 09.
//
// Expected effect: see docs/10-invariants.md.
//
// Run:   10-invariants --rows 4099 --cols 8191
//        10-invariants --rows 4099 --cols 8191 --variant skewed-09,lean-only

#include "10-invariants/invariants.hpp"

#include "06-float4/float4.cuh"
#include "09-alignment/alignment.cuh"
#include "10-invariants/invariants.cuh"

namespace step10 {

template <class W>
using Path = tt::Path<W, step06::transpose_vec<W>>;

const tt::Step& step() {
  static const tt::Step s = [] {
    tt::Step st;
    st.id = "10-invariants";
    st.title = "Step 09's tiles with half the instructions: addresses as a base plus a constant";
    st.variants = {
        tt::variant<Path<step09::Column<float>>, Path<Lean<float>>, Path<step09::Column<double>>,
                    Path<Lean<double>>>(
            "lean",
            "step 08's column kernel where output rows are whole sectors, else the lean tiles"),
        tt::variant<Path<Lean<float>>, Path<Lean<double>>>(
            "lean-only", "always the skewed tiles, each move a base computed once plus a constant"),
        tt::variant<Path<step09::Skewed<float>>, Path<step09::Skewed<double>>>(
            "skewed-09", "step 09's skewed tiles, each move computed whole in every pass"),
    };
    st.default_variant = "all";
    st.headline = "lean";
    return st;
  }();
  return s;
}

}  // namespace step10
