/// @file async_copy.hpp
/// @brief Step 11: the tile filled by the copy path from global to shared memory that skips
/// the registers (cp.async), with step 10's moves, and with tiles twice as tall.
#pragma once

#include "step.hpp"

/// Step 11: loads that do not pass through registers.
namespace step11 {
/// The step's description.
const tt::Step& step();
}  // namespace step11
