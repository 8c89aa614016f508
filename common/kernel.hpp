/// @file kernel.hpp
/// @brief The words every step's kernel is written in: who a thread is (Thread), what one
/// thread moves in one pass (Move), and a vector of elements moved by one instruction (Vec).
///
/// A step describes its work as a class W with two functions, `W::load(me, pass, rows, cols)`
/// and `W::store(me, pass, rows, cols)`. Each returns the Move that thread @c me makes in pass
/// @c pass: whether the element is inside the matrix, its offset in global memory and its slot
/// in the tile. The kernel is a short loop over them; the harness (tiled.hpp) derives the
/// launch, the access analysis and a CPU run of the same moves (emulate.hpp) from the same two
/// functions, so the predictions describe exactly what the kernel executes.
#pragma once

#include <vector_types.h>

#include <cstdint>
#include <type_traits>
#include <utility>

#include "types.hpp"

namespace tt {

/// Who a thread is: the four built-in variables a kernel reads, as one value that the host
/// can make too (the access analyser and the CPU emulation call the same move functions).
struct Thread {
  uint3 block;     ///< blockIdx.
  uint3 thread;    ///< threadIdx.
  dim3 block_dim;  ///< blockDim.
  dim3 grid_dim;   ///< gridDim.

  /// Linear thread index in the block, x fastest: the order in which warps take threads.
  TT_HD int linear() const {
    return static_cast<int>((thread.z * block_dim.y + thread.y) * block_dim.x + thread.x);
  }
};

#ifdef __CUDACC__
/// The calling thread, inside a kernel.
__device__ inline Thread this_thread() {
  return {blockIdx, threadIdx, blockDim, gridDim};
}
#endif

/// What one thread moves in one pass of a kernel: N consecutive elements of a global matrix
/// (one element, or one 16-byte vector), and the tile slot of each of them. The load phase
/// reads in[global ...] and writes tile[slot ...]; the store phase reads tile[slot ...] and
/// writes out[global ...]. A thread whose element lies outside the matrix does nothing
/// (@c inside is false).
template <int N = 1>
struct Move {
  bool inside;          ///< Whether the thread executes this move at all.
  std::int64_t global;  ///< Element offset of the first element in the global matrix.
  int slot[N];          ///< Tile slot (element index in shared memory) of element k.
  /// Tile slot of element @p k of the vector.
  TT_HD int slot_of(int k) const { return slot[k]; }
  /// Tile slot of element @p k of the vector, to set.
  TT_HD int& slot_of(int k) { return slot[k]; }
};

/// One element a move: a single slot.
template <>
struct Move<1> {
  bool inside;          ///< Whether the thread executes this move at all.
  std::int64_t global;  ///< Element offset in the global matrix.
  int slot;             ///< Tile slot (element index in shared memory).
  /// Tile slot of the element (@p k is 0).
  TT_HD int slot_of(int /*k*/) const { return slot; }
  /// Tile slot of the element (@p k is 0), to set.
  TT_HD int& slot_of(int /*k*/) { return slot; }
};

/// Whether the TILE x TILE tile of block @p b (x along the input's columns) lies wholly
/// inside a rows x cols matrix: then every move of the block is inside and needs no check.
TT_HD inline bool whole_tile(uint3 b, int tile, int rows, int cols) {
  return (static_cast<std::int64_t>(b.y) + 1) * tile <= rows &&
         (static_cast<std::int64_t>(b.x) + 1) * tile <= cols;
}

/// Whether work W has seam blocks, `W::seam(me)`: steps 09 to 11 give the sectors that two
/// output rows share to one extra row of blocks, whose loads are gathers.
template <class W, class = void>
struct has_seam : std::false_type {};
template <class W>
struct has_seam<W, std::void_t<decltype(W::seam(std::declval<const Thread&>()))>> : std::true_type {
};

/// Whether block @p me is one of work W's seam blocks (never, where W has none).
template <class W>
TT_HD bool is_seam(const Thread& me) {
  if constexpr (has_seam<W>::value)
    return W::seam(me);
  else
    return false;
}

/// The blocks an SM that __launch_bounds__ may ask for, for blocks of @p threads threads, on
/// the architecture being compiled: @p want, or as many as its SMs hold threads for (1024 on
/// compute capability 7.5, 1536 on 8.6 and 8.9, 2048 on 8.0 and 9.0).
TT_HD constexpr int min_blocks(int want, int threads) {
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 750)
  constexpr int sm_threads = 1024;
#elif defined(__CUDA_ARCH__) && \
    (__CUDA_ARCH__ == 860 || __CUDA_ARCH__ == 870 || __CUDA_ARCH__ == 890)
  constexpr int sm_threads = 1536;
#else
  constexpr int sm_threads = 2048;
#endif
  return want * threads <= sm_threads ? want : sm_threads / threads;
}

/// What a work description says unless it says otherwise: one element a move, one pass before
/// the barrier and one after it, no shared-memory tile. Steps derive their work from it and
/// state only what they change.
template <typename T>
struct Work {
  using Elem = T;                               ///< Element type.
  static constexpr int kVec = 1;                ///< Elements one global instruction moves.
  static constexpr int kLoadPasses = 1;         ///< Moves a thread makes before the barrier.
  static constexpr int kStorePasses = 1;        ///< Moves a thread makes after the barrier.
  static constexpr int kTileElems = 0;          ///< Shared-memory tile (0: no tile).
  static constexpr bool kTileStoreVec = false;  ///< The tile is written one vector at a time.
  /// Bytes around each global load that the L2 is asked to fetch with it (load_vec's
  /// Prefetch: 0, none; step 17 asks for 256).
  static constexpr int kL2Prefetch = 0;
};

/// The element type of work W: kernels take `const Elem<W>* in, Elem<W>* out`, so that W alone
/// names the kernel (and the compiler's name for it is the same everywhere).
template <class W>
using Elem = typename W::Elem;

/// N elements of T that one instruction moves: N = 1 is a plain element; N = 16 / sizeof(T)
/// is 16 bytes, aligned to 16 (4 floats or 2 doubles: LDG.128, STS.128, STG.128).
template <typename T, int N>
struct alignas(sizeof(T) * N) Vec {
  T e[N];  ///< The elements.
};

/// Elements in 16 bytes: 4 floats or 2 doubles.
template <typename T>
constexpr int kVec16 = static_cast<int>(16 / sizeof(T));

/// Reads the N elements at @p p (aligned to N elements) with one instruction.
///
/// With @p Prefetch 256, the load also asks the L2 to fetch, where it misses, the whole
/// aligned block of 256 bytes around @p p from the DRAM (PTX's prefetch-size hint,
/// ld.global.nc.L2::256B; SASS LDG.E.LTC256B): the same data in registers, possibly more
/// sectors brought into the L2. The input must not change while the kernel runs (.nc, as the
/// `const __restrict__` loads compile to anyway). 16-byte loads of float or double only, as
/// step 17 makes; the elements come back as the plain load's, in registers. Compute
/// capability 7.5 has no such hint: there the load is the plain one.
template <int N, int Prefetch = 0, typename T>
TT_HD inline Vec<T, N> load_vec(const T* p) {
  static_assert(Prefetch == 0 || Prefetch == 256, "the L2 prefetch size here: 0 or 256 bytes");
  static_assert(Prefetch == 0 || sizeof(T) * N == 16, "a prefetching load is 16 bytes");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800  // the hint exists from sm_80 on
  if constexpr (Prefetch == 256 && std::is_same_v<T, float>) {
    Vec<T, N> v;
    asm("ld.global.nc.L2::256B.v4.f32 {%0, %1, %2, %3}, [%4];"
        : "=f"(v.e[0]), "=f"(v.e[1]), "=f"(v.e[2]), "=f"(v.e[3])
        : "l"(p));
    return v;
  } else if constexpr (Prefetch == 256 && std::is_same_v<T, double>) {
    Vec<T, N> v;
    asm("ld.global.nc.L2::256B.v2.f64 {%0, %1}, [%2];" : "=d"(v.e[0]), "=d"(v.e[1]) : "l"(p));
    return v;
  } else {
    static_assert(Prefetch == 0, "a prefetching load is of float or double");
  }
#endif
  return *reinterpret_cast<const Vec<T, N>*>(p);
}

/// Writes the N elements of @p v to @p p (aligned to N elements) with one instruction.
template <int N, typename T>
TT_HD inline void store_vec(T* p, const Vec<T, N>& v) {
  *reinterpret_cast<Vec<T, N>*>(p) = v;
}

}  // namespace tt
