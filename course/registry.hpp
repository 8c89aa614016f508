/// @file registry.hpp
/// @brief The tutorial's transpose steps in order, for the tour, the benchmark and the tests.
#pragma once

#include <vector>

#include "step.hpp"

namespace tt {
/// Steps 02 onwards, in the order of the course (TT_STEPS in steps/CMakeLists.txt).
const std::vector<const Step*>& tutorial_steps();
}  // namespace tt
