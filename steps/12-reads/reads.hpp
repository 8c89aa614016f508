/// @file reads.hpp
/// @brief Step 12: step 10's skewed tiles, reading fewer input sectors twice: each block
/// loads only the rows its stores read, and in float its tiles are twice as wide.
#pragma once

#include "step.hpp"

/// Step 12: fewer sectors read twice.
namespace step12 {
/// The step's description.
const tt::Step& step();
}  // namespace step12
