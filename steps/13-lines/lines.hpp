/// @file lines.hpp
/// @brief Step 13: step 10's skewed tiles, whose whole blocks load line-aligned 16-byte
/// windows of their rows, so that no warp load asks the L2 for two lines.
#pragma once

#include "step.hpp"

/// Step 13: loads that stay inside their lines.
namespace step13 {
/// The step's description.
const tt::Step& step();
}  // namespace step13
