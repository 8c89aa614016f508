// Step 13: loads that stay inside their 128-byte lines.
//
// What changed since 10: the whole blocks' load moves, their tile and their load phase
// (lines.cuh). At an odd row length nearly every warp load of steps 10 to 12 starts inside a
// line and asks the L2 for two (chapter 12: 2.07 M read requests at 4099 x 8191 in float,
// where a copy of the same bytes makes 1.05 M). Here a whole block reads each of its rows as
// the line-aligned window that holds its piece, in 16-byte vectors, each inside one line.
//
// The kernel is lines.cuh's transpose_lines; the edge and seam blocks move as step 10's
// (10-invariants/invariants.cuh), and where output rows are whole sectors step 08's column
// kernel runs, as in step 10. An input not aligned to a line runs step 10's kernel.
//
// Expected effect: see docs/13-lines.md.
//
// Run:   13-lines --rows 4099 --cols 8191
//        13-lines --rows 4099 --cols 8191 --variant lines --explain

#include "13-lines/lines.hpp"

#include "06-float4/float4.cuh"
#include "09-alignment/alignment.cuh"
#include "10-invariants/invariants.cuh"
#include "13-lines/lines.cuh"

namespace step13 {

/// Work W, moved by this step's kernel.
template <class W>
using Path = tt::Path<W, transpose_lines<W>>;
/// Work W, moved by step 06's kernel (steps 08 to 10).
template <class W>
using Vec = tt::Path<W, step06::transpose_vec<W>>;

const tt::Step& step() {
  static const tt::Step s = [] {
    tt::Step st;
    st.id = "13-lines";
    st.title = "Loads inside their lines: line-aligned windows of each row";
    st.variants = {
        tt::variant<Vec<step09::Column<float>>, Path<Lines<float>>, Vec<step10::Lean<float>>,
                    Vec<step09::Column<double>>, Path<Lines<double>>, Vec<step10::Lean<double>>>(
            "lines",
            "step 08's column kernel where output rows are whole sectors, else step 10's tiles "
            "with line-window loads (step 10's kernel where the input is not line-aligned)"),
        tt::variant<Path<Lines<float>>, Vec<step10::Lean<float>>, Path<Lines<double>>,
                    Vec<step10::Lean<double>>>(
            "lines-only", "always the line-window tiles (step 10's where not line-aligned)"),
        tt::variant<Vec<step09::Column<float>>, Vec<step10::Lean<float>>,
                    Vec<step09::Column<double>>, Vec<step10::Lean<double>>>(
            "lean", "step 10's kernels as they are, for the comparison in one run"),
    };
    st.default_variant = "all";
    st.headline = "lines";
    return st;
  }();
  return s;
}

}  // namespace step13
