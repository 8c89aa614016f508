/// @file naive.hpp
/// @brief Step 02: the naive transpose, one thread per element.
#pragma once

#include "step.hpp"

/// Step 02: the naive transpose.
namespace step02 {
/// The step's description: its two variants and how they launch.
const tt::Step& step();
}  // namespace step02
