/// @file references.hpp
/// @brief The ceilings and the library call a user would make instead of writing a kernel:
/// cudaMemcpy device-to-device, a simple 16-byte copy kernel, and cuBLAS geam used as a
/// transpose. They are a Step like the tutorial's own, so they verify, time and report alike
/// and run on their own as the `references` program.
#pragma once

#include "step.hpp"

namespace tt {

/// The references, as a step with variants "memcpy", "copy-kernel" and "cublas".
const Step& references();

/// Destroys the cuBLAS handle if one was made (call before the program ends).
void release_references();

}  // namespace tt
