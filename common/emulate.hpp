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
#include <cstdlib>
#include <cstring>
#include <set>
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

/// Row and column of element @p s of a matrix of rows of @p ld elements (0 <= s < 2^50),
/// through a reciprocal and one correction, not a 64-bit division: that division, once for
/// every element a store puts, took a fifth of the emulation's time.
struct RowCol {
  /// For rows of @p ld elements.
  explicit RowCol(std::int64_t ld) : ld_(ld), inv_(1.0 / static_cast<double>(ld)) {}
  /// (row, column) of element @p s.
  std::pair<std::int64_t, std::int64_t> operator()(std::int64_t s) const {
    std::int64_t r = static_cast<std::int64_t>(static_cast<double>(s) * inv_);
    std::int64_t c = s - r * ld_;
    if (c < 0) --r, c += ld_;  // the product may round across a row's end, never further
    if (c >= ld_) ++r, c -= ld_;
    return {r, c};
  }

 private:
  std::int64_t ld_;
  double inv_;
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

/// Where an element offset held in 32 bits wraps: at 2^31 in an int, at 2^32 in an unsigned.
inline constexpr std::int64_t kIntWrap = std::int64_t{1} << 31;       ///< 2^31: an int wraps.
inline constexpr std::int64_t kUnsignedWrap = std::int64_t{1} << 32;  ///< 2^32: an unsigned.

/// The most blocks of a one-dimensional grid that emulate() scans for its far blocks (step
/// 08's at 65537 x 65537 has 1025 x 1025); a grid of more keeps far_blocks(grid).
inline constexpr unsigned kFarScan = 1u << 22;

/// How many blocks either side of the block that holds a wrap a line of far blocks takes. A
/// row of blocks: 4096, so every row of the lab's shapes is whole (the longest, 04's
/// pad-16x17 at 65537 x 65537, has 4097). A column: 64, the blocks around the wrap; whole, the
/// columns would double the time, and a row through a wrap already holds moves on both sides
/// of the same wrap on the other side of the transpose.
inline constexpr unsigned kFarRowReach = 4096;   ///< Blocks either side, along a row.
inline constexpr unsigned kFarColumnReach = 64;   ///< Blocks either side, down a column.

/// The elements on both sides of the largest wrap that a matrix of @p n elements passes, B - 1
/// and B (B = 2^32, else 2^31; none below 2^31 + 1): the lines through 2^31 of a matrix past
/// 2^32 would show nothing more, its blocks past 2^32 are past 2^31 too.
inline std::vector<std::int64_t> wrap_elements(std::int64_t n) {
  if (n > kUnsignedWrap) return {kUnsignedWrap - 1, kUnsignedWrap};
  if (n > kIntWrap) return {kIntWrap - 1, kIntWrap};
  return {};
}

namespace detail {

/// The block that holds element @p k along a grid axis of @p g blocks over @p d elements, the
/// blocks ceil(d / g) elements each: exact for a grid of equal tiles over a large matrix.
inline unsigned block_of(std::int64_t k, std::int64_t d, unsigned g) {
  const std::int64_t per = (d + g - 1) / g;
  return static_cast<unsigned>(std::min<std::int64_t>(k / per, g - 1));
}

}  // namespace detail

/// Which of the input's axes grid x runs over, for far_blocks(grid, shape, x): its columns (x
/// along its rows: most steps), its rows (x down its columns: 02's write-coalesced, steps 15
/// to 17), or either (both readings' lines run).
enum class GridX { columns, rows, either };

/// The blocks that emulate() runs alone on a problem of shape @p s too large to allocate on
/// the CPU, launched on @p grid: far_blocks(grid), and the lines of blocks through each
/// element e where an offset wraps (wrap_elements()), where a 32-bit offset fails even in a
/// whole tile: the line along the input row that holds input element e, and the line along the
/// input column that holds output element e (its output row), one a row of the grid, the
/// other a column, each up to kFarRowReach or kFarColumnReach blocks either side of e's block.
inline std::vector<uint3> far_blocks(dim3 grid, Shape s, GridX x = GridX::either) {
  std::vector<uint3> out = far_blocks(grid);
  std::set<std::pair<unsigned, unsigned>> seen;
  for (const uint3 b : out) seen.insert({b.x, b.y});
  const auto add = [&](unsigned bx, unsigned by) {
    if (seen.insert({bx, by}).second) out.push_back({bx, by, 0});
  };
  const auto row = [&](unsigned by, unsigned bx) {  // grid row by, around block bx
    const unsigned from = bx > kFarRowReach ? bx - kFarRowReach : 0;
    for (unsigned i = from; i <= std::min(grid.x - 1, bx + kFarRowReach); ++i) add(i, by);
  };
  const auto column = [&](unsigned bx, unsigned by) {  // grid column bx, around block by
    const unsigned from = by > kFarColumnReach ? by - kFarColumnReach : 0;
    for (unsigned i = from; i <= std::min(grid.y - 1, by + kFarColumnReach); ++i) add(bx, i);
  };
  for (const std::int64_t e : wrap_elements(s.count())) {
    const std::int64_t in_row = e / s.cols, in_col = e % s.cols;
    const std::int64_t out_row = e / s.rows, out_col = e % s.rows;  // input (out_col, out_row)
    using detail::block_of;
    if (x != GridX::rows) {
      row(block_of(in_row, s.rows, grid.y), block_of(in_col, s.cols, grid.x));
      column(block_of(out_row, s.cols, grid.x), block_of(out_col, s.rows, grid.y));
    }
    if (x != GridX::columns) {
      column(block_of(in_row, s.rows, grid.x), block_of(in_col, s.cols, grid.y));
      row(block_of(out_row, s.cols, grid.y), block_of(out_col, s.rows, grid.x));
    }
  }
  return out;
}

/// Emulates the launch of work @p W on @p pb: the input is filled as the harness fills it,
/// and the output compared with the reference transpose. Returns the problems found (at most
/// a few of each kind). Every tile slot also remembers which input element it holds, and each
/// store must put it where the transpose does.
///
/// With @p reach far, only the blocks far_blocks(grid) names run, with lines those of
/// far_blocks(grid, shape) (on a grid of one row of blocks over several rows of tiles, step
/// 08's, those whose first moves lie where the offsets wrap), and nothing of the matrix is
/// allocated: the moves of a problem past 2^31 elements (46341 x 46341, where offsets
/// computed in 32-bit int wrap) or 2^32 (65537 x 65537, where unsigned ones do) are checked
/// by that bookkeeping alone.
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
Problems emulate(const Problem& pb, Reach reach = Reach::all) {
  const bool far = reach != Reach::all;
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
  const detail::RowCol row_col(cols);
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
        const auto [r, c] = row_col(source[slot]);
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
  // The first element of block b's first load (store: of its first store), or -1.
  const auto first_move = [&](unsigned b, bool store) -> std::int64_t {
    const Thread me = thread_of({b, 0, 0}, 0);
    const Move<N> m = store ? W::store(me, 0, rows, cols) : W::load(me, 0, rows, cols);
    return m.inside ? m.global : -1;
  };
  if (reach == Reach::far) {
    blocks = far_blocks(l.grid);
  } else if (far && l.grid.y == 1 && l.grid.z == 1 && l.grid.x > 2 && l.grid.x <= kFarScan &&
             (first_move(l.grid.x / 2, false) >= cols || first_move(l.grid.x - 1, false) >= cols)) {
    // One row of blocks over several rows of tiles: a grid whose blocks take tiles in an
    // order of their own (step 08's). Its lines are the blocks whose first move lies in the
    // row of tiles that holds input element e (as a row of blocks, kFarRowReach), or in the
    // column of tiles that holds output element e (kFarColumnReach), found from every block's
    // first load and store, so in any order.
    blocks = far_blocks(l.grid);
    const unsigned g = l.grid.x;
    std::vector<std::int64_t> first_in(g), first_out(g);
    for (unsigned b = 0; b < g; ++b) {
      first_in[b] = first_move(b, false);
      first_out[b] = first_move(b, true);
    }
    std::set<unsigned> seen;
    for (const uint3 b : blocks) seen.insert(b.x);
    // The band is the last first row (rows of @p ld elements) at or before e's: at most
    // @p reach of its blocks either side of the one whose first move is nearest to e's column.
    const auto band = [&](const std::vector<std::int64_t>& first, std::int64_t ld, std::int64_t e,
                          std::size_t reach) {
      std::int64_t top = -1;
      for (const std::int64_t f : first)
        if (f >= 0 && f / ld <= e / ld) top = std::max(top, f / ld);
      std::vector<unsigned> in;
      for (unsigned b = 0; b < g; ++b)
        if (first[b] >= 0 && first[b] / ld == top) in.push_back(b);
      const auto off = [&](std::size_t i) { return std::abs(first[in[i]] % ld - e % ld); };
      std::size_t at = 0;
      for (std::size_t i = 1; i < in.size(); ++i)
        if (off(i) < off(at)) at = i;
      const std::size_t lo = at > reach ? at - reach : 0;
      for (std::size_t i = lo; i < std::min(in.size(), at + reach + 1); ++i)
        if (seen.insert(in[i]).second) blocks.push_back({in[i], 0, 0});
    };
    for (const std::int64_t e : wrap_elements(n)) {
      band(first_in, cols, e, kFarRowReach);
      band(first_out, rows, e, kFarColumnReach);
    }
  } else if (far) {
    // Which way grid x runs: block (1, 0)'s first load on the input's first row, or further.
    const std::int64_t next = l.grid.x > 1 ? first_move(1, false) : -1;
    GridX x = GridX::either;
    if (next >= 0) x = next < cols ? GridX::columns : GridX::rows;
    blocks = far_blocks(l.grid, s, x);
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
