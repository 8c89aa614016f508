/// @file float4.hpp
/// @brief Step 06: 16-byte global loads and stores.
#pragma once

#include "step.hpp"

/// Step 06: 16-byte vectors on the global side.
namespace step06 {
/// The step's description.
const tt::Step& step();
}  // namespace step06
