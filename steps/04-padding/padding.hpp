/// @file padding.hpp
/// @brief Step 04: the shared tile padded by one column.
#pragma once

#include "step.hpp"

/// Step 04: padding removes the bank conflict.
namespace step04 {
/// The step's description.
const tt::Step& step();
}  // namespace step04
