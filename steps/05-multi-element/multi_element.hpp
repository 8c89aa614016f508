/// @file multi_element.hpp
/// @brief Step 05: fewer threads, several elements each.
#pragma once

#include "step.hpp"

/// Step 05: each thread moves several elements.
namespace step05 {
/// The step's description.
const tt::Step& step();
}  // namespace step05
