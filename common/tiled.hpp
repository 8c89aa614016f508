/// @file tiled.hpp
/// @brief One description per kernel: from a step's work class W and the kernel that runs it,
/// the harness derives the launch, the shared-memory size, the launcher, the access list the
/// analyser reads and a CPU emulation, all through W's own move functions.
///
/// A work class W (one per kernel configuration and element type) has:
///
///     using Elem = float;                   // the element type
///     static constexpr int kVec;            // elements one global instruction moves: 1, or 16
///     bytes static constexpr int kLoadPasses;     // moves each thread makes before the barrier
///     static constexpr int kStorePasses;    // moves each thread makes after it
///     static constexpr int kTileElems;      // shared-memory tile in elements (0: no tile)
///     static constexpr bool kTileStoreVec;  // the tile is written one vector an instruction
///     static tt::Launch launch(const tt::Problem&);                // grid and block
///     TT_HD static tt::Move<kVec> load(const tt::Thread&, int pass, int rows, int cols);
///     TT_HD static tt::Move<kVec> store(const tt::Thread&, int pass, int rows, int cols);
///
/// and the step's kernel makes, in every thread, the moves load(me, 0 .. kLoadPasses - 1)
/// (global to tile, all global loads issued first), a barrier, then store(me, 0 ..
/// kStorePasses - 1) (tile to global). The tile is read one element an instruction (the
/// gather of a transpose), and written one vector an instruction when kTileStoreVec, else one
/// element an instruction. scripts/sass_check.py checks in the compiled code that each kernel
/// issues kLoadPasses global loads of the stated width before its first shared store.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "device_moves.cuh"
#include "emulate.hpp"
#include "kernel.hpp"
#include "step.hpp"

namespace tt {

/// A kernel of the course: @p W is its work, @p KERNEL the __global__ function that runs it
/// (signature `void (const Elem* in, Elem* out, int rows, int cols)`). @p HOST, where the
/// kernel's own load phase is host code too (step 05's), names it for the emulation, which
/// then runs it on the CPU beside W's moves (emulate.hpp): a class with
/// `template <bool CHECKED> static void load(const Thread&, const Elem* in, Elem* tile,
/// int rows, int cols)`.
///
/// @p ASYNC says that the kernel's load phase copies each move with cp.async (step 11): one
/// instruction (LDGSTS) that is the global load and the tile store at once, with no register
/// between them. The moves, and so the analysis, are the same; the access list says so.
///
/// @p CUTS says that the kernel checks W's load passes from W::kFullPasses on even in a whole
/// tile (step 12: their moves may be cut), so the emulation lets those moves be outside.
template <class W, auto KERNEL, class HOST = void, bool ASYNC = false, bool CUTS = false>
struct Path {
  using Work = W;                            ///< The work description.
  using Elem = typename W::Elem;             ///< Its element type.
  using Host = HOST;                         ///< The load phase on the CPU, or void.
  static constexpr auto kernel = KERNEL;     ///< The kernel.
  static constexpr bool kAsyncLoad = ASYNC;  ///< Its loads go to the tile by cp.async.
  static constexpr bool kCutPasses = CUTS;   ///< Whole tiles check passes from kFullPasses on.
};

/// The grid of TILE x TILE tiles over a rows x cols input (x along its columns), with @p block.
inline Launch tile_grid(const Problem& pb, int tile, dim3 block) {
  return {dim3(static_cast<unsigned>(ceil_div(pb.shape.cols, tile)),
               static_cast<unsigned>(ceil_div(pb.shape.rows, tile))),
          block};
}

/// The name of kernel @p K as the compiler spells it, e.g.
/// "step05::transpose_multi<Multi<4, float> >" (scripts/sass_check.py finds it in the SASS).
template <auto K>
std::string kernel_name() {
  const std::string f = __PRETTY_FUNCTION__;  // "... [with auto K = NAME; ...]" (gcc, clang)
  auto start = f.find("K = ");
  if (start == std::string::npos) return f;
  start += 4;
  int depth = 0;
  std::size_t end = start;
  for (; end < f.size(); ++end) {
    const char c = f[end];
    if (c == '<' || c == '(') ++depth;
    if (c == '>' || c == ')') --depth;
    if (depth < 0 || (depth == 0 && (c == ';' || c == ']'))) break;
  }
  std::string name = f.substr(start, end - start);
  if (!name.empty() && name[0] == '&') name.erase(0, 1);
  return name;
}

namespace detail {

/// Whether work W states its own condition on the shape, `static bool fits(Shape)`.
template <class W, class = void>
struct has_fits : std::false_type {};
template <class W>
struct has_fits<W, std::void_t<decltype(W::fits(std::declval<Shape>()))>> : std::true_type {};

/// Whether work W states the alignment its pointers need, `kPointerAlign` (bytes).
template <class W, class = void>
struct has_pointer_align : std::false_type {};
template <class W>
struct has_pointer_align<W, std::void_t<decltype(W::kPointerAlign)>> : std::true_type {};

/// Whether the rows of @p s suit work W: W::fits(s) where W states it, else a vector must not
/// straddle two rows.
template <class W>
bool shape_fits(const Shape& s) {
  if constexpr (has_fits<W>::value) return W::fits(s);
  return W::kVec == 1 || (s.rows % W::kVec == 0 && s.cols % W::kVec == 0);
}

/// Whether path P launches its kernel itself, `P::kOwnLaunch` and `static void launch(Launch,
/// const Elem* in, Elem* out, Shape, cudaStream_t)`: a kernel that takes more than the input,
/// the output and the shape (step 14's takes the input's tensor map, made for each launch).
template <class P, class = void>
struct has_own_launch : std::false_type {};
template <class P>
struct has_own_launch<P, std::void_t<decltype(P::kOwnLaunch)>>
    : std::bool_constant<P::kOwnLaunch> {};

/// Whether the tensor memory accelerator fills work W's tile, `W::kBoxes` boxes a block (step
/// 14): W's wide moves (has_wide) are then the copy engine's 16-byte chunks, and W states
/// whether the engine swizzles them (`kSwizzle`).
template <class W, class = void>
struct has_boxes : std::false_type {};
template <class W>
struct has_boxes<W, std::void_t<decltype(W::kBoxes)>> : std::true_type {};

/// Whether the copy engine also copies work W's output out of the tile, `W::kStoreBoxes` boxes
/// a block (step 14's `tma-store`): the threads then write the tile back as output chunks
/// (`W::stage(me, i)`, kGroupsPerWarp of them), and `W::out_chunk(me, pass, rows, cols)` gives
/// the engine's copy out as 16-byte chunks, kWidePasses a thread (for the analyser).
template <class W, class = void>
struct has_store_boxes : std::false_type {};
template <class W>
struct has_store_boxes<W, std::void_t<decltype(W::kStoreBoxes)>> : std::true_type {};

/// Whether both pointers are aligned to W's vector, or to W::kPointerAlign where W states it.
template <class W, typename T>
bool pointers_fit(const T* in, const T* out) {
  std::uintptr_t a = sizeof(T) * W::kVec;
  if constexpr (has_pointer_align<W>::value) a = W::kPointerAlign;
  return reinterpret_cast<std::uintptr_t>(in) % a == 0 &&
         reinterpret_cast<std::uintptr_t>(out) % a == 0;
}

/// The four (or, without a tile, two) accesses of work W, through W::load and W::store; with
/// @p async, the load and the tile store are one cp.async each, and where W has seam blocks
/// (has_seam) these load through registers: two more accesses, in those blocks only.
template <class W>
std::vector<Access> accesses(int rows, int cols, dim3 block, dim3 grid, bool async = false) {
  using T = typename W::Elem;
  constexpr int N = W::kVec;
  constexpr std::int64_t size = sizeof(T);
  constexpr int elem = static_cast<int>(size), vec = static_cast<int>(size) * N;
  const auto me = [block, grid](const ThreadPos& t) {
    return Thread{t.block, t.thread, block, grid};
  };
  // Where the element of a move is, or nothing when the thread skips it.
  const auto global = [](const Move<N>& m) -> std::optional<std::int64_t> {
    if (!m.inside) return std::nullopt;
    return m.global * size;
  };
  const auto slot = [](const Move<N>& m, int k) -> std::optional<std::int64_t> {
    if (!m.inside) return std::nullopt;
    return m.slot_of(k) * size;
  };
  std::vector<Access> a;
  a.push_back({N == 1 ? "in[m.global]" : "load_vec(in + m.global)", Space::global, Op::load, vec,
               W::kLoadPasses, [=](const ThreadPos& t) {
                 return global(W::load(me(t), t.iteration, rows, cols));
               }});
  if (W::kTileElems > 0) {
    if (async) {  // one cp.async a move: the load above and the tile store are one instruction
      // ... except in seam blocks (is_seam), which load through registers as before.
      const std::string copy = N == 1 ? "copy_async(&tile[m.slot], in + m.global)"
                                      : "copy_async(&tile[m.slot[0]], in + m.global)";
      const auto copied = [=](const ThreadPos& t) { return !is_seam<W>(me(t)); };
      a.back().code = copy;
      a.back().async = true;
      a.back().address = [=](const ThreadPos& t) -> std::optional<std::int64_t> {
        if (!copied(t)) return std::nullopt;
        return global(W::load(me(t), t.iteration, rows, cols));
      };
      a.push_back({copy, Space::shared, Op::store, vec, W::kLoadPasses,
                   [=](const ThreadPos& t) -> std::optional<std::int64_t> {
                     if (!copied(t)) return std::nullopt;
                     return slot(W::load(me(t), t.iteration, rows, cols), 0);
                   },
                   true});
      if constexpr (has_seam<W>::value) {
        static_assert(N == 1, "seam blocks move one element a move");
        a.push_back({"in[m.global]", Space::global, Op::load, vec, W::kLoadPasses,
                     [=](const ThreadPos& t) -> std::optional<std::int64_t> {
                       if (copied(t)) return std::nullopt;
                       return global(W::load(me(t), t.iteration, rows, cols));
                     }});
        a.push_back({"tile[m.slot] = v", Space::shared, Op::store, vec, W::kLoadPasses,
                     [=](const ThreadPos& t) -> std::optional<std::int64_t> {
                       if (copied(t)) return std::nullopt;
                       return slot(W::load(me(t), t.iteration, rows, cols), 0);
                     }});
      }
    } else if (N == 1 || W::kTileStoreVec) {
      a.push_back({N == 1 ? "tile[m.slot] = v" : "store_vec(&tile[m.slot[0]], v)", Space::shared,
                   Op::store, vec, W::kLoadPasses, [=](const ThreadPos& t) {
                     return slot(W::load(me(t), t.iteration, rows, cols), 0);
                   }});
    } else {  // one element an instruction: iteration = pass * N + k
      a.push_back({"tile[m.slot[k]] = v.e[k]", Space::shared, Op::store, elem, W::kLoadPasses * N,
                   [=](const ThreadPos& t) {
                     return slot(W::load(me(t), t.iteration / N, rows, cols), t.iteration % N);
                   }});
    }
    a.push_back({N == 1 ? "tile[m.slot]" : "v.e[k] = tile[m.slot[k]]", Space::shared, Op::load,
                 elem, W::kStorePasses * N, [=](const ThreadPos& t) {
                   return slot(W::store(me(t), t.iteration / N, rows, cols), t.iteration % N);
                 }});
  }
  a.push_back({N == 1 ? "out[m.global] = ..." : "store_vec(out + m.global, v)", Space::global,
               Op::store, vec, W::kStorePasses, [=](const ThreadPos& t) {
                 return global(W::store(me(t), t.iteration, rows, cols));
               }});
  if constexpr (has_wide<W>::value) {
    // Blocks that W::wide() names load through W::wide_load instead (step 13): the two load
    // accesses above are those of the other blocks, and two more are those of the wide ones.
    static_assert(W::kTileElems > 0, "wide loads go to a tile");
    constexpr int V = W::kWideVec;
    const auto wide = [=](const ThreadPos& t) { return W::wide(me(t), rows, cols); };
    for (int k = 0; k < 2; ++k) {  // in[m.global] and tile[m.slot] = v: the other blocks only
      const auto f = a[static_cast<std::size_t>(k)].address;
      a[static_cast<std::size_t>(k)].address =
          [=](const ThreadPos& t) -> std::optional<std::int64_t> {
        if (wide(t)) return std::nullopt;
        return f(t);
      };
    }
    const auto wmove = [=](const ThreadPos& t) {
      return W::wide_load(me(t), t.iteration, rows, cols);
    };
    a.insert(a.begin(), {{"load_vec(in + w.global)", Space::global, Op::load,
                          static_cast<int>(size) * V, W::kWidePasses,
                          [=](const ThreadPos& t) -> std::optional<std::int64_t> {
                            if (!wide(t)) return std::nullopt;
                            const Move<V> m = wmove(t);
                            if (!m.inside) return std::nullopt;
                            return m.global * size;
                          }},
                         {"store_vec(&tile[w.slot[0]], v)", Space::shared, Op::store,
                          static_cast<int>(size) * V, W::kWidePasses,
                          [=](const ThreadPos& t) -> std::optional<std::int64_t> {
                            if (!wide(t)) return std::nullopt;
                            const Move<V> m = wmove(t);
                            if (!m.inside) return std::nullopt;
                            return m.slot_of(0) * size;
                          }}});
    if (async) {  // step 16: each chunk one cp.async, the load and the tile store at once
      a[0].code = a[1].code = "copy_async(&tile[w.slot[0]], in + w.global)";
      a[0].async = a[1].async = true;
    }
    if constexpr (has_boxes<W>::value) {  // step 14: the copy engine, not the threads
      a[0].code = "copy engine: box -> tile (its 16-byte chunks)";
      a[1].code = W::kSwizzle ? "copy engine: box -> tile, 128-byte swizzle (its 16-byte chunks)"
                              : "copy engine: box -> tile, dense (its 16-byte chunks)";
      a[0].tma = a[1].tma = true;
    }
  }
  if constexpr (has_store_boxes<W>::value) {  // the engine copies out what the threads stage
    constexpr int V = W::kVecElems;
    Access& out = a.back();  // the global store: the engine's, as its 16-byte chunks
    out.code = "copy engine: tile -> box (its 16-byte chunks)";
    out.width = static_cast<int>(size) * V;
    out.iterations = W::kWidePasses;
    out.tma = true;
    out.address = [=](const ThreadPos& t) -> std::optional<std::int64_t> {
      const Move<V> m = W::out_chunk(me(t), t.iteration, rows, cols);
      if (!m.inside) return std::nullopt;
      return m.global * size;
    };
    a.insert(a.end() - 1,
             {"store_vec(&tile[s.slot[0]], w)", Space::shared, Op::store,
              static_cast<int>(size) * V, W::kGroupsPerWarp,
              [=](const ThreadPos& t) -> std::optional<std::int64_t> {
                return W::stage(me(t), t.iteration).slot_of(0) * size;
              }});
  }
  return a;
}

/// The launch plan of path P for @p pb.
template <class P>
LaunchPlan plan_of(const Problem& pb) {
  using W = typename P::Work;
  const Launch l = W::launch(pb);
  LaunchPlan p;
  p.grid = l.grid;
  p.block = l.block;
  p.shared_bytes = static_cast<std::size_t>(W::kTileElems) * sizeof(typename W::Elem);
  p.kernel = kernel_name<P::kernel>();
  p.loads_per_thread = W::kLoadPasses;
  if constexpr (has_seam<W>::value)
    if (P::kAsyncLoad) p.register_loads_per_thread = 1;  // step 11's seam_phase(): one by one
  p.load_bytes = static_cast<int>(sizeof(typename W::Elem)) * W::kVec;
  static_assert(W::kL2Prefetch == 0 || has_wide<W>::value,
                "only the whole blocks' window loads (step 13's kernel) take the L2 hint");
  p.l2_prefetch = W::kL2Prefetch;
  if constexpr (has_wide<W>::value) {  // the whole blocks' loads, which most blocks make
    p.edge_loads_per_thread = p.loads_per_thread;
    p.edge_load_bytes = p.load_bytes;
    p.loads_per_thread = W::kWidePasses;
    p.load_bytes = static_cast<int>(sizeof(typename W::Elem)) * W::kWideVec;
  }
  if constexpr (has_boxes<W>::value) {  // no thread loads: one asks for the boxes
    p.loads_per_thread = p.load_bytes = p.edge_loads_per_thread = p.edge_load_bytes = 0;
    p.boxes_per_block = W::kBoxes;
    p.box_bytes = static_cast<int>(sizeof(typename W::Elem)) * W::kBoxElems;
    // A box that starts past the last column is not asked for: count a row of blocks.
    std::int64_t row = 0;
    for (unsigned bx = 0; bx < l.grid.x; ++bx)
      for (int b = 0; b < W::kBoxes; ++b)
        row += W::box(Thread{uint3{bx, 0, 0}, uint3{0, 0, 0}, l.block, l.grid}, b,
                      static_cast<int>(pb.shape.cols))
                   .inside;
    p.boxes = row * l.grid.y;
  }
  if constexpr (has_store_boxes<W>::value) {  // a box out that starts past the last row is not
    p.store_boxes_per_block = W::kStoreBoxes;  // asked for: count a column of blocks
    std::int64_t column = 0;
    for (unsigned by = 0; by < l.grid.y; ++by)
      for (int b = 0; b < W::kStoreBoxes; ++b)
        column += W::out_box(Thread{uint3{0, by, 0}, uint3{0, 0, 0}, l.block, l.grid}, b,
                             static_cast<int>(pb.shape.rows))
                      .inside;
    p.store_boxes = column * l.grid.x;
  }
  p.accesses = accesses<W>(static_cast<int>(pb.shape.rows), static_cast<int>(pb.shape.cols),
                           p.block, p.grid, P::kAsyncLoad);
  return p;
}

/// The plan of the first of @p P... that takes element type T and suits the shape.
template <typename T, class... P>
LaunchPlan plan_first(const Problem& pb) {
  LaunchPlan plan;
  bool found = false;
  const auto try_one = [&](auto path) {
    using Q = decltype(path);
    if constexpr (std::is_same_v<typename Q::Elem, T>) {
      if (!found && shape_fits<typename Q::Work>(pb.shape)) {
        plan = plan_of<Q>(pb);
        found = true;
      }
    }
  };
  (try_one(P{}), ...);
  if (!found) throw std::logic_error("no kernel of this variant takes this shape");
  return plan;
}

/// Launches the first of @p P... that takes T and suits the shape and the pointers: the plan's
/// kernel with the plan's grid and block when it is that one, otherwise (a pointer that is
/// not aligned to the vector) the fallback with its own launch shape.
template <typename T, class... P>
void launch_first(const LaunchPlan& plan, const T* in, T* out, Shape s, cudaStream_t stream) {
  bool done = false;
  const auto try_one = [&](auto path) {
    using Q = decltype(path);
    using W = typename Q::Work;
    if constexpr (std::is_same_v<typename Q::Elem, T>) {
      if (done || !shape_fits<W>(s) || !pointers_fit<W>(in, out)) return;
      Launch l{plan.grid, plan.block};
      if (kernel_name<Q::kernel>() != plan.kernel)
        l = W::launch(Problem{s, dtype_of<T>::value, {}});
      if constexpr (has_own_launch<Q>::value)
        Q::launch(l, in, out, s, stream);
      else
        Q::kernel<<<l.grid, l.block, 0, stream>>>(in, out, static_cast<int>(s.rows),
                                                  static_cast<int>(s.cols));
      done = true;
    }
  };
  (try_one(P{}), ...);
  if (!done) throw std::logic_error("no kernel of this variant takes these pointers");
}

/// The problems that @p check finds on every path of @p paths that takes T and suits the
/// shape (the fallback as well as the path the plan takes), each named by its kernel.
template <typename T, class Check, class... P>
Problems on_every_path(const Problem& pb, Check check, P... paths) {
  Problems all;
  const auto try_one = [&](auto path) {
    using Q = decltype(path);
    if constexpr (std::is_same_v<typename Q::Elem, T>) {
      if (!shape_fits<typename Q::Work>(pb.shape)) return;
      for (auto& p : check(path)) all.push_back(kernel_name<Q::kernel>() + ": " + p);
    }
  };
  (try_one(paths), ...);
  return all;
}

/// Emulates every path of @p P... for T that suits the shape, and returns the problems found.
template <typename T, class... P>
Problems emulate_all(const Problem& pb, Reach reach) {
  return on_every_path<T>(
      pb,
      [&](auto path) {
        using Q = decltype(path);
        return emulate<typename Q::Work, typename Q::Host, Q::kCutPasses, Q::kAsyncLoad>(pb,
                                                                                         reach);
      },
      P{}...);
}

/// Compares the GPU's moves with the host's for every path of @p P... for T that suits the
/// shape (device_moves.cuh).
template <typename T, class... P>
Problems device_moves_all(const Problem& pb) {
  return on_every_path<T>(
      pb,
      [&](auto path) { return compare_device_moves<typename decltype(path)::Work>(pb); },
      P{}...);
}

/// Whether any of @p P... takes element type T.
template <typename T, class... P>
constexpr bool takes() {
  return (std::is_same_v<typename P::Elem, T> || ...);
}

}  // namespace detail

/// A variant of a step whose kernels are @p P... (Path<W, kernel> for float and for double; for
/// each type, the first path that suits the shape and the pointers runs: a 16-byte path, then
/// its scalar fallback).
template <class... P>
Variant variant(std::string name, std::string summary) {
  Variant v;
  v.name = std::move(name);
  v.summary = std::move(summary);
  v.plan = [](const Problem& pb) {
    return pb.dtype == DType::f32 ? detail::plan_first<float, P...>(pb)
                                  : detail::plan_first<double, P...>(pb);
  };
  v.emulate = [](const Problem& pb, Reach reach) {
    return pb.dtype == DType::f32 ? detail::emulate_all<float, P...>(pb, reach)
                                  : detail::emulate_all<double, P...>(pb, reach);
  };
  v.device_moves = [](const Problem& pb) {
    return pb.dtype == DType::f32 ? detail::device_moves_all<float, P...>(pb)
                                  : detail::device_moves_all<double, P...>(pb);
  };
  if constexpr (detail::takes<float, P...>()) v.run_f32 = &detail::launch_first<float, P...>;
  if constexpr (detail::takes<double, P...>()) v.run_f64 = &detail::launch_first<double, P...>;
  return v;
}

}  // namespace tt
