/// @file float4.cuh
/// @brief Step 06's kernel: step 05's (loads first, into registers, and no checks on whole
/// tiles), one vector a move. Steps 07 and 08 run it too, with other work: there only the
/// moves change.
#pragma once

#include "kernel.hpp"

namespace step06 {

/// Before the barrier: every load of this thread (one vector of N elements each) into
/// registers, issued back to back, then into the tile: one vector an instruction when
/// W::kTileStoreVec (the vector's slots are one aligned row piece), else N scalar stores.
/// CHECKED: the block's tile reaches past the matrix, so each move is checked.
template <bool CHECKED, class W, typename T>
__device__ void load_phase(const tt::Thread& me, const T* __restrict__ in, T* tile, int rows,
                           int cols) {
  constexpr int N = W::kVec;
  tt::Vec<T, N> v[W::kLoadPasses];
#pragma unroll
  for (int p = 0; p < W::kLoadPasses; ++p) {
    const tt::Move<N> m = W::load(me, p, rows, cols);
    if (!CHECKED || m.inside) v[p] = tt::load_vec<N>(in + m.global);
  }
#pragma unroll
  for (int p = 0; p < W::kLoadPasses; ++p) {
    const tt::Move<N> m = W::load(me, p, rows, cols);
    if (CHECKED && !m.inside) continue;
    if constexpr (W::kTileStoreVec) {
      tt::store_vec<N>(&tile[m.slot_of(0)], v[p]);  // one 16-byte store
    } else {
#pragma unroll
      for (int k = 0; k < N; ++k) tile[m.slot_of(k)] = v[p].e[k];  // N scalar stores
    }
  }
}

/// After the barrier: gather N elements down a tile column, store them as one vector of an
/// output row.
template <bool CHECKED, class W, typename T>
__device__ void store_phase(const tt::Thread& me, const T* tile, T* __restrict__ out, int rows,
                            int cols) {
  constexpr int N = W::kVec;
#pragma unroll
  for (int p = 0; p < W::kStorePasses; ++p) {
    const tt::Move<N> m = W::store(me, p, rows, cols);
    if (CHECKED && !m.inside) continue;
    tt::Vec<T, N> w;
#pragma unroll
    for (int k = 0; k < N; ++k) w.e[k] = tile[m.slot_of(k)];
    tt::store_vec<N>(out + m.global, w);
  }
}

/// Moves the tiles of work W (kThreads threads a block, kVec elements a move).
template <class W>
__global__ void __launch_bounds__(W::kThreads)
    transpose_vec(const tt::Elem<W>* __restrict__ in, tt::Elem<W>* __restrict__ out, int rows,
                  int cols) {
  using T = tt::Elem<W>;
  __shared__ alignas(16) T tile[W::kTileElems];
  const tt::Thread me = tt::this_thread();
  const bool whole = W::whole_tile(me, rows, cols);  // the same for every thread of the block

  if (whole)
    load_phase<false, W>(me, in, tile, rows, cols);
  else
    load_phase<true, W>(me, in, tile, rows, cols);
  __syncthreads();
  if (whole)
    store_phase<false, W>(me, tile, out, rows, cols);
  else
    store_phase<true, W>(me, tile, out, rows, cols);
}

}  // namespace step06
