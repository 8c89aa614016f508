/// @file kernels.hpp
/// @brief Step 18's own kernels, each on one GPU's part of the matrix: the input made from its
/// formula, the nccl variant's placing pass, and the peer variant's transpose.
#pragma once

#include <cuda_runtime_api.h>

#include "18-all-to-all/plan.hpp"

namespace step18 {

/// Fills GPU @p p's slab @p in with its input rows: element(index) of each.
template <typename T>
void fill(T* in, const Plan& plan, int p, cudaStream_t stream);

/// The nccl variant's placing pass on GPU @p q: every block received, in @p recv as the plan
/// lays them out, copied into its columns of @p out.
template <typename T>
void place(const T* recv, T* out, const Plan& plan, int q, cudaStream_t stream);

/// The peer variant on GPU @p p: its slab @p in transposed, each element written straight into
/// the output of the GPU that owns it; @p outs (in device memory) holds every GPU's output
/// pointer, as this process reaches it.
template <typename T>
void transpose_to_owners(const T* in, T* const* outs, const Plan& plan, int p, cudaStream_t stream);

}  // namespace step18
