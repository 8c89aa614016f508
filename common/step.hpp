/// @file step.hpp
/// @brief How a step describes itself to the harness: its variants, how each one launches,
/// and the memory accesses of its kernel, computed by the kernel's own index functions.
///
/// A step's source file holds the kernel and the small __host__ __device__ functions that
/// compute its indices. The same functions feed a LaunchPlan's Access list, so the access
/// analyser (analyser.hpp) reasons about exactly the addresses the kernel touches.
#pragma once

#include <cuda_runtime_api.h>
#include <vector_types.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "types.hpp"
#include "verify.hpp"

namespace tt {

/// A thread-block shape given on the command line (steps that take --block).
struct BlockShape {
  /// Threads along x (the fast dimension: consecutive x are consecutive lanes).
  int x = 0;
  /// Threads along y.
  int y = 0;
};

/// What a variant is asked to do.
struct Problem {
  Shape shape;                      ///< Input matrix (rows x cols).
  DType dtype = DType::f32;         ///< Element type.
  std::optional<BlockShape> block;  ///< Requested block shape, for steps that take one.

  /// The block of a step that takes one (Step::block_for fills it in); a problem without one
  /// is a programming error, reported rather than launched with a 0 x 0 block.
  dim3 required_block() const {
    if (!block) throw std::logic_error("this variant needs a block shape (Step::block_for)");
    return dim3(static_cast<unsigned>(block->x), static_cast<unsigned>(block->y));
  }
};

/// Memory space of an access.
enum class Space { global, shared };
/// Direction of an access.
enum class Op { load, store };

/// A thread as its kernel sees it: block index, thread index, and the iteration of the
/// kernel's loop that executes the access (0 for kernels without a loop).
struct ThreadPos {
  /// blockIdx of the thread.
  uint3 block;
  /// threadIdx of the thread.
  uint3 thread;
  /// Iteration of the kernel's loop (0 to Access::iterations - 1).
  int iteration;
};

/// Byte address (from the start of the array or tile) that a thread touches, or nothing
/// when the thread does not execute the access (outside the matrix, say).
using AddressFn = std::function<std::optional<std::int64_t>(const ThreadPos&)>;

/// One memory instruction of a kernel.
struct Access {
  std::string code;  ///< The source expression, e.g. "out[offset(col, row, rows)]".
  /// Global or shared memory.
  Space space = Space::global;
  /// Load or store.
  Op op = Op::load;
  int width = 4;       ///< Bytes per thread (4, 8 or 16).
  int iterations = 1;  ///< How many times each thread executes it.
  AddressFn address;   ///< Computed with the kernel's own index functions.
  /// Made by cp.async (LDGSTS): one instruction is both this global load and the shared
  /// store beside it, and the data passes through no register.
  bool async = false;
  /// Made by the tensor memory accelerator (step 14): the copy engine moves this global load
  /// into the shared store beside it, a box at a time, at one thread's request. The addresses
  /// are the box's 16-byte chunks, taken 32 at a time as if threads moved them: they give its
  /// sectors and lines, and the banks its writes fill; its instructions are the plan's boxes.
  bool tma = false;
};

/// Grid and block of a launch.
struct Launch {
  dim3 grid{1, 1, 1};   ///< Grid dimensions.
  dim3 block{1, 1, 1};  ///< Block dimensions.
};

/// How a variant launches for one Problem, and what its kernel accesses.
struct LaunchPlan {
  /// Grid dimensions of the launch.
  dim3 grid{1, 1, 1};
  /// Block dimensions of the launch.
  dim3 block{1, 1, 1};
  std::size_t shared_bytes = 0;  ///< Static shared memory of the kernel (for the report).
  std::vector<Access> accesses;  ///< Empty for library calls (cudaMemcpy, cuBLAS).
  std::string kernel;            ///< The kernel's name as the compiler spells it (or empty).
  int loads_per_thread = 0;      ///< Global loads each thread issues before its first store.
  /// Where a cp.async kernel's seam blocks load through registers (step 11): the global
  /// loads each of their threads issues before its first shared store (1: one at a time);
  /// 0 otherwise.
  int register_loads_per_thread = 0;
  int load_bytes = 0;  ///< Bytes of each of those loads.
  /// Where the whole blocks load wider than the other blocks (step 13's line windows; then
  /// loads_per_thread and load_bytes are the whole blocks'): the global loads each thread of
  /// the other blocks issues before its first shared store, and their bytes; 0 otherwise.
  int edge_loads_per_thread = 0;
  int edge_load_bytes = 0;  ///< Bytes of each of the other blocks' loads.
  /// Bytes around each of the loads of load_bytes that the L2 is asked to fetch with it
  /// (W::kL2Prefetch: step 17's 256; 0, no hint). The machine code shows it as LDG.E.LTC256B.
  int l2_prefetch = 0;
  /// Where the tensor memory accelerator fills the tile (step 14; then no thread loads, and
  /// loads_per_thread is 0): the boxes one thread of each block asks it to copy, and the
  /// bytes of each; 0 otherwise.
  int boxes_per_block = 0;
  int box_bytes = 0;        ///< Bytes of each box.
  std::int64_t boxes = 0;   ///< Box copies of the whole launch (an edge block asks for fewer).
  /// Where the copy engine also writes the output (step 14's `tma-store`): the boxes each
  /// block has it copy out, and those of the whole launch; 0 otherwise.
  int store_boxes_per_block = 0;
  std::int64_t store_boxes = 0;  ///< Box copies out, of the whole launch.
};

/// What went wrong when a variant's moves were run on the CPU (empty: an exact transpose).
using Problems = std::vector<std::string>;

/// Which blocks emulate() runs. `all`: every block, on the matrix. Without the matrix (its
/// moves checked by their bookkeeping alone, for problems past 2^31 and 2^32 elements):
/// `far`, the corner and middle blocks (far_blocks(grid)); `lines`, those and the lines of
/// blocks through the elements where an offset wraps (far_blocks(grid, shape)). The lab's
/// grader takes `lines` for its part `large`, over the few variants an exercise grades; over
/// every variant of every step (the course's tests) the lines take a hundred times as long.
enum class Reach { all, far, lines };

/// Launches a variant. Must only enqueue work on @p stream; the harness checks the launch.
template <typename T>
using LaunchFn = void (*)(const LaunchPlan& plan, const T* in, T* out, Shape shape,
                          cudaStream_t stream);

/// One selectable version of a step's kernel.
struct Variant {
  std::string name;                   ///< Selected with --variant NAME.
  std::string summary;                ///< One line for --help and --list.
  Expect expect = Expect::transpose;  ///< References that copy say Expect::copy.
  /// The launch plan (grid, block, accesses) for a problem.
  std::function<LaunchPlan(const Problem&)> plan;
  LaunchFn<float> run_f32 = nullptr;   ///< nullptr: float not supported.
  LaunchFn<double> run_f64 = nullptr;  ///< nullptr: double not supported.
  /// Runs the kernel's moves on the CPU (emulate.hpp: every block, or without the matrix the
  /// far ones, Reach); empty for library calls.
  std::function<Problems(const Problem&, Reach)> emulate;
  /// Computes the kernel's moves on the GPU for sampled blocks and compares them with the
  /// host's, which the analysis and the emulation use (device_moves.cuh); the differences
  /// found, none when the two compilers agree. Empty for library calls.
  std::function<Problems(const Problem&)> device_moves;
  /// The compute capability its kernels need, as 10 x major + minor (80: cp.async and the L2
  /// prefetch-size hint; 90: the tensor memory accelerator), or 0 for any GPU the course
  /// builds for. A program on an older GPU names the variant and does not launch it
  /// (runs_on()). Set with needs().
  int needs_sm = 0;
  /// What its kernels use that needs_sm stands for ("cp.async", say); empty when it is 0.
  std::string needs_what = {};

  /// Whether this variant runs element type @p t.
  bool supports(DType t) const { return t == DType::f32 ? run_f32 != nullptr : run_f64 != nullptr; }
};

/// @p v, whose kernels use @p what (cp.async, say), which needs compute capability
/// @p sm / 10 . @p sm % 10: the program names it on an older GPU instead of launching it.
inline Variant needs(Variant v, int sm, std::string what) {
  v.needs_sm = sm;
  v.needs_what = std::move(what);
  return v;
}

/// Whether a GPU of compute capability @p major.@p minor has every instruction @p v needs.
inline bool runs_on(const Variant& v, int major, int minor) {
  return 10 * major + minor >= v.needs_sm;
}

/// The line a program prints for a variant that does not run on a GPU of compute capability
/// @p major.@p minor named @p gpu: what it needs, and what this GPU is.
inline std::string needs_newer_gpu(const std::string& step, const Variant& v,
                                   const std::string& gpu, int major, int minor) {
  return step + "/" + v.name + " needs a GPU of compute capability " +
         std::to_string(v.needs_sm / 10) + "." + std::to_string(v.needs_sm % 10) + " or newer (" +
         v.needs_what + "); " + gpu +
         " is " + std::to_string(major) + "." + std::to_string(minor) + ": not run";
}

/// A step of the tutorial (or the set of references): an id, a title and its variants.
struct Step {
  std::string id;     ///< "02-naive": the folder and executable name.
  std::string title;  ///< One line.
  /// Every variant, in the order --list prints them.
  std::vector<Variant> variants;
  std::string default_variant;  ///< Used when --variant is not given ("all" runs every one).
  std::string headline;         ///< The one variant the tour and the benchmark show for this
                                ///< step (empty: default_variant).
  bool takes_block = false;     ///< Whether --block BXxBY is accepted.
  BlockShape default_block{};   ///< Used when takes_block and --block is not given.

  /// The block a launch of this step uses: @p requested if given, else the step's default
  /// when it takes a block, else none (the variant's plan chooses).
  std::optional<BlockShape> block_for(std::optional<BlockShape> requested = std::nullopt) const {
    if (requested || !takes_block) return requested;
    return default_block;
  }

  /// @p pb with its block filled in by block_for(): a problem that names no block runs with
  /// this step's default (the harness plans every launch through this).
  Problem problem_for(Problem pb) const {
    pb.block = block_for(pb.block);
    return pb;
  }

  /// The variant that stands for this step in the tour and the benchmark.
  const Variant& headline_variant() const {
    return *find(headline.empty() ? default_variant : headline);
  }

  /// The variant called @p name, or nullptr.
  const Variant* find(const std::string& name) const {
    for (const auto& v : variants)
      if (v.name == name) return &v;
    return nullptr;
  }
};

}  // namespace tt
