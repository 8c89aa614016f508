/// @file tma.hpp
/// @brief Step 14: Hopper's tensor memory accelerator copies each tile into shared memory,
/// measured against the best hand-written step.
#pragma once

#include "step.hpp"

/// Step 14: the hardware's copy engine.
namespace step14 {
/// The step's description.
const tt::Step& step();
}  // namespace step14
