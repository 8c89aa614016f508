/// @file shared.hpp
/// @brief Step 03: a 32 x 32 tile staged in shared memory.
#pragma once

#include "step.hpp"

/// Step 03: the shared-memory tile.
namespace step03 {
/// The step's description.
const tt::Step& step();
}  // namespace step03
