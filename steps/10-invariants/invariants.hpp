/// @file invariants.hpp
/// @brief Step 10: what does not change from pass to pass is computed once. Step 09's tiles
/// with half its instructions: on a GPU whose memory is fast for its SMs (the H200), the SMs'
/// issue rate, not the memory, is what held step 09 back.
#pragma once

#include "step.hpp"

/// Step 10: fewer instructions an element.
namespace step10 {
/// The step's description.
const tt::Step& step();
}  // namespace step10
