// Test-only kernels, each a correct transpose with one deliberate mistake, described as a
// tt::Step so that they run through the same harness (tt::measure) as the course's kernels.
// The verifier must catch every one of them, on every shape.
#pragma once

#include "step.hpp"
#include "types.hpp"

namespace broken {

/// Variants: "one-wrong" writes 0 (a value no input element holds) to one output element,
/// "one-unwritten" never writes that element, "row-shifted" fills one output row from the
/// input row below the right one (wrapping around), and "correct" is the unbroken control.
const tt::Step& step();

/// The output element that "one-wrong" and "one-unwritten" get wrong for an input of shape
/// @p s (row, col of the cols x rows output), and whose row "row-shifted" shifts.
inline tt::Coord target(tt::Shape s) {
  return {static_cast<int>(s.cols / 2), static_cast<int>(s.rows / 2)};
}

}  // namespace broken
