/// @file alignment.hpp
/// @brief Step 09: alignment is a property of addresses, not of indices: tiles placed so that
/// every 32-byte sector of the output is written whole by one block, for any shape.
#pragma once

#include "step.hpp"

/// Step 09: whole sectors at any shape.
namespace step09 {
/// The step's description.
const tt::Step& step();
}  // namespace step09
