/// @file emulate.hpp
/// @brief Runs a step's moves on the CPU, block by block, exactly as its kernel calls them:
/// every thread's load passes into the block's tile, then every thread's store passes out of
/// it. It checks what the GPU would not report (a slot written twice, a slot read that no
/// thread wrote, an address outside the matrix, an output element written twice or never)
/// and compares the result with the CPU transpose, bit for bit. No GPU is needed, so the index
/// arithmetic of every step is tested on every shape wherever the tests run.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernel.hpp"
#include "step.hpp"
#include "verify.hpp"

namespace tt {

namespace detail {

/// "block (bx, by), thread t, pass p" for a message.
inline std::string where(const Thread& me, int pass) {
  std::ostringstream os;
  os << "block (" << me.block.x << ", " << me.block.y << ", " << me.block.z << "), thread "
     << me.linear() << ", pass " << pass;
  return os.str();
}

/// Whether work W says which blocks have a whole tile (and so skip the checks).
template <class W, class = void>
struct has_whole_tile : std::false_type {};
template <class W>
struct has_whole_tile<W, std::void_t<decltype(W::whole_tile(std::declval<const Thread&>(), 0, 0))>>
    : std::true_type {};

/// Whether work W loads some blocks through wide moves (step 13's line windows):
/// `W::wide(me, rows, cols)` says which blocks, `W::wide_load(me, pass, rows, cols)` their
/// kWidePasses moves of kWideVec elements each, in place of W::load. A wide move that is not
/// inside is one the thread skips; every one that is must lie inside the matrix.
template <class W, class = void>
struct has_wide : std::false_type {};
template <class W>
struct has_wide<W, std::void_t<decltype(W::wide(std::declval<const Thread&>(), 0, 0))>>
    : std::true_type {};

/// The load passes that work W makes unchecked in a whole tile, in a kernel that checks the
/// passes from W::kFullPasses on even there (step 12's; the Path says so): all of them,
/// unless W states kFullPasses.
template <class W, class = void>
struct full_passes {
  static constexpr int value = W::kLoadPasses;  ///< Every load pass.
};
/// Work W that states kFullPasses: its first kFullPasses load passes.
template <class W>
struct full_passes<W, std::void_t<decltype(W::kFullPasses)>> {
  static constexpr int value = W::kFullPasses;  ///< The passes W states.
};

}  // namespace detail

/// The blocks that emulate() runs alone on a problem too large to allocate on the CPU: the
/// grid's four corners and its middle, where the offsets are largest and where edge tiles are.
inline std::vector<uint3> far_blocks(dim3 grid) {
  std::vector<uint3> out;
  for (unsigned y : {0u, grid.y / 2, grid.y - 1})
    for (unsigned x : {0u, grid.x / 2, grid.x - 1}) {
      const uint3 b{x, y, 0};
      if (std::none_of(out.begin(), out.end(),
                       [&](uint3 o) { return o.x == b.x && o.y == b.y; }))
        out.push_back(b);
    }
  return out;
}

/// Emulates the launch of work @p W on @p pb: the input is filled as the harness fills it,
/// and the output compared with the reference transpose. Returns the problems found (at most
/// a few of each kind). Every tile slot also remembers which input element it holds, and each
/// store must put it where the transpose does.
///
/// With @p far, only the blocks far_blocks() names run, and nothing of the matrix is
/// allocated: the moves of a problem past 2^31 elements (46341 x 46341, where offsets computed
/// in 32-bit int wrap) are checked by that bookkeeping alone.
///
/// @p HOST, when not void, is the kernel's own load phase compiled for the host (tt::Path's
/// third argument): each block's threads then also run it, in order, into a second tile, and
/// every slot must hold what the moves put there, so that a load phase that skips a pass or
/// loads nothing fails on the CPU as it would on the GPU.
///
/// @p ASYNC (tt::Path's): the kernel copies its moves with cp.async, except in a seam block
/// (is_seam()), which makes only its first W::kSeamPasses moves, through registers (step
/// 11's seam_phase); so does the emulation, and a block mistaken for a seam block, whose
/// later moves are then never made, fails here.
template <class W, class HOST = void, bool CUTS = false, bool ASYNC = false>
Problems emulate(const Problem& pb, bool far = false) {
  using T = typename W::Elem;
  constexpr int N = W::kVec;
  const Shape s = pb.shape;
  const int rows = static_cast<int>(s.rows), cols = static_cast<int>(s.cols);
  const std::int64_t n = s.count();
  const auto allocated = static_cast<std::size_t>(far ? 0 : n);
  std::vector<T> in(allocated), out(allocated);
  fill_input(in);
  std::vector<unsigned char> written(allocated, 0);
  for (auto& x : out) std::memset(&x, kPoisonByte, sizeof x);

  Problems problems;
  int reported = 0;
  const auto fail = [&](const std::string& what) {
    if (reported++ < 8) problems.push_back(what);
  };

  const Launch l = W::launch(pb);
  const int threads = static_cast<int>(l.block.x * l.block.y * l.block.z);
  // The tile of one block; without one (kTileElems == 0) each thread keeps its elements in
  // registers, numbered by slot.
  const bool tiled = W::kTileElems > 0;
  const int per_thread = W::kLoadPasses * N;
  const std::size_t tile_size = tiled ? W::kTileElems : static_cast<std::size_t>(per_thread);
  std::vector<T> tile(tile_size);
  std::vector<std::int64_t> source(tile_size);  // the input element each slot holds
  std::vector<unsigned char> filled(tile_size);

  const auto thread_of = [&](uint3 b, int t) {
    const uint3 th{static_cast<unsigned>(t) % l.block.x,
                   static_cast<unsigned>(t) / l.block.x % l.block.y,
                   static_cast<unsigned>(t) / (l.block.x * l.block.y)};
    return Thread{b, th, l.block, l.grid};
  };
  // Both take a move of any width (W::kVec, or a wide move's): the width is its slots'.
  const auto check_global = [&](const auto& m, std::int64_t limit, const Thread& me, int pass,
                                const char* side) {
    constexpr int w = static_cast<int>(sizeof m.slot / sizeof(int));
    if (m.global < 0 || m.global + w > limit) {
      fail(std::string(side) + " outside the matrix at " + detail::where(me, pass));
      return false;
    }
    if (m.global % w != 0) {
      fail(std::string(side) + " vector not aligned to its width at " + detail::where(me, pass));
      return false;
    }
    return true;
  };
  const auto check_slots = [&](const auto& m, const Thread& me, int pass, bool vector) {
    constexpr int w = static_cast<int>(sizeof m.slot / sizeof(int));
    for (int k = 0; k < w; ++k) {
      const int slot = m.slot_of(k);
      if (slot < 0 || static_cast<std::size_t>(slot) >= tile_size) {
        fail("tile slot " + std::to_string(slot) + " outside the tile at " +
             detail::where(me, pass));
        return false;
      }
      if (vector && (m.slot_of(k) != m.slot_of(0) + k || m.slot_of(0) % w != 0)) {
        fail("a 16-byte tile access whose slots are not one aligned vector at " +
             detail::where(me, pass));
        return false;
      }
    }
    return true;
  };

  // A block that W calls whole skips the checks of its stores and loads (CUTS: of its first
  // full_passes loads only): each of those moves must be inside.
  bool whole = false;
  const auto check_whole = [&](const Move<N>& m, const Thread& me, int pass, bool load) {
    if (whole && !m.inside && (!load || !CUTS || pass < detail::full_passes<W>::value))
      fail("whole_tile() is true for a block with a move outside the matrix, at " +
           detail::where(me, pass));
  };
  // The load phase of a thread (tiled: into the block's tile), and its store phase.
  const auto load_move = [&](const auto& m, const Thread& me, int p, bool vector) {
    constexpr int w = static_cast<int>(sizeof m.slot / sizeof(int));
    if (!m.inside) return;
    if (!check_global(m, n, me, p, "load") || !check_slots(m, me, p, vector)) return;
    for (int k = 0; k < w; ++k) {
      const auto slot = static_cast<std::size_t>(m.slot_of(k));
      if (filled[slot])
        fail("two writes to tile slot " + std::to_string(slot) + " at " + detail::where(me, p));
      filled[slot] = 1;
      source[slot] = m.global + k;
      if (!far) tile[slot] = in[static_cast<std::size_t>(m.global + k)];
    }
  };
  const auto load_phase = [&](const Thread& me) {
    if constexpr (detail::has_wide<W>::value) {
      if (W::wide(me, rows, cols)) {  // the wide moves instead: 16-byte tile stores
        for (int p = 0; p < W::kWidePasses; ++p)
          load_move(W::wide_load(me, p, rows, cols), me, p, true);
        return;
      }
    }
    int passes = W::kLoadPasses;
    if constexpr (ASYNC && has_seam<W>::value)
      if (is_seam<W>(me)) passes = W::kSeamPasses;  // as step 11's seam_phase
    for (int p = 0; p < passes; ++p) {
      const Move<N> m = W::load(me, p, rows, cols);
      check_whole(m, me, p, true);
      load_move(m, me, p, W::kTileStoreVec);
    }
  };
  const auto store_phase = [&](const Thread& me) {
    for (int p = 0; p < W::kStorePasses; ++p) {
      const Move<N> m = W::store(me, p, rows, cols);
      check_whole(m, me, p, false);
      if (!m.inside) continue;
      if (!check_global(m, n, me, p, "store") || !check_slots(m, me, p, false)) continue;
      for (int k = 0; k < N; ++k) {
        const auto slot = static_cast<std::size_t>(m.slot_of(k));
        const auto at = static_cast<std::size_t>(m.global + k);
        if (!filled[slot]) {
          fail("reads tile slot " + std::to_string(slot) + ", which no thread wrote, at " +
               detail::where(me, p));
          continue;
        }
        const std::int64_t r = source[slot] / cols, c = source[slot] % cols;
        if (c * rows + r != m.global + k)
          fail("puts input element (" + std::to_string(r) + ", " + std::to_string(c) +
               ") at output element " + std::to_string(m.global + k) + ", not " +
               std::to_string(c * rows + r) + ", at " + detail::where(me, p));
        if (far) continue;
        if (written[at]++) fail("writes output element " + std::to_string(at) + " twice");
        out[at] = tile[slot];
      }
    }
  };

  // The kernel's load phase itself, on the CPU (HOST): into a tile with guard zones on both
  // sides, poisoned, then compared slot by slot with what the moves loaded.
  const std::size_t guard = tile_size + 64;
  std::vector<T> mine(tile_size + 2 * guard);
  const auto kernel_load_phase = [&](uint3 b) {
    if constexpr (!std::is_void_v<HOST>) {
      for (auto& x : mine) std::memset(&x, kPoisonByte, sizeof x);
      const bool checked = !whole;
      for (int t = 0; t < threads; ++t) {
        if (checked)
          HOST::template load<true>(thread_of(b, t), in.data(), mine.data() + guard, rows, cols);
        else
          HOST::template load<false>(thread_of(b, t), in.data(), mine.data() + guard, rows, cols);
      }
      T poison;
      std::memset(&poison, kPoisonByte, sizeof poison);
      for (std::size_t k = 0; k < mine.size(); ++k) {
        if (k >= guard && k < guard + tile_size) continue;  // the guard zones first
        if (std::memcmp(&mine[k], &poison, sizeof poison) != 0) {
          fail("the load phase (the kernel's code, run on the CPU) writes outside the tile, "
               "in block (" + std::to_string(b.x) + ", " + std::to_string(b.y) + ")");
          return;
        }
      }
      for (std::size_t slot = 0; slot < tile_size; ++slot) {
        const T& got = mine[guard + slot];
        if (filled[slot] && std::memcmp(&got, &tile[slot], sizeof got) != 0) {
          const std::int64_t r = source[slot] / cols, c = source[slot] % cols;
          fail("the load phase (the kernel's code, run on the CPU) leaves tile slot " +
               std::to_string(slot) + " of block (" + std::to_string(b.x) + ", " +
               std::to_string(b.y) + ") without input element (" + std::to_string(r) + ", " +
               std::to_string(c) + "), which its move " +
               (std::memcmp(&got, &poison, sizeof got) == 0 ? "loads: no thread stored it"
                                                            : "loads: it holds another value"));
          break;
        }
      }
    }
  };

  std::vector<uint3> blocks;
  if (far) {
    blocks = far_blocks(l.grid);
  } else {
    for (unsigned bz = 0; bz < l.grid.z; ++bz)
      for (unsigned by = 0; by < l.grid.y; ++by)
        for (unsigned bx = 0; bx < l.grid.x; ++bx) blocks.push_back({bx, by, bz});
  }
  for (const uint3 b : blocks) {
        if constexpr (detail::has_whole_tile<W>::value)
          whole = W::whole_tile(thread_of(b, 0), rows, cols);
        if (tiled) {
          std::fill(filled.begin(), filled.end(), 0);
          for (int t = 0; t < threads; ++t) load_phase(thread_of(b, t));
          if constexpr (!std::is_void_v<HOST>)
            if (!far) kernel_load_phase(b);
          // __syncthreads(): every load of the block is in the tile before any store.
          for (int t = 0; t < threads; ++t) store_phase(thread_of(b, t));
        } else {
          for (int t = 0; t < threads; ++t) {
            std::fill(filled.begin(), filled.end(), 0);
            load_phase(thread_of(b, t));
            store_phase(thread_of(b, t));
          }
        }
  }
  if (far) return problems;

  const VerifyResult r = verify(in.data(), out.data(), s, Expect::transpose);
  if (!r.ok()) problems.push_back(describe(r));
  return problems;
}

}  // namespace tt
