/// @file prefetch.hpp
/// @brief Step 17: step 15's kernels, whose line-window loads ask the L2 for the whole 256-byte
/// block of DRAM around each load (the prefetch-size hint), in matrices of at most 16384 rows;
/// from 32705 rows on, their columns of tiles in bands of 16384 rows.
#pragma once

#include "step.hpp"

/// Step 17: whole DRAM blocks for the odd rows.
namespace step17 {
/// The step's description.
const tt::Step& step();
}  // namespace step17
