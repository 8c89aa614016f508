/// @file wide.hpp
/// @brief Step 16: in float, step 13's line windows on step 12's wide tiles (128 input
/// columns a block), in step 15's column order: fewer sectors read by two blocks.
#pragma once

#include "step.hpp"

/// Step 16: wider tiles, in column order.
namespace step16 {
/// The step's description.
const tt::Step& step();
}  // namespace step16
