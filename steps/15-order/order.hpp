/// @file order.hpp
/// @brief Step 15: step 13's kernel, its blocks taken in step 08's column order, so that the
/// blocks that run together write one run of whole output rows.
#pragma once

#include "step.hpp"

/// Step 15: the block order, again, at every shape.
namespace step15 {
/// The step's description.
const tt::Step& step();
}  // namespace step15
