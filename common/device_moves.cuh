/// @file device_moves.cuh
/// @brief The moves a step's work computes on the GPU, against the moves it computes on the
/// CPU. The analysis, the emulation and the lab's CPU parts all run W::load and W::store as
/// the host compiler built them; the kernel runs them as the device compiler built them. Where
/// the two compilers read the same code differently (a floating-point expression the device
/// compiler contracts into an FMA and the host compiler does not, say), the CPU grades one
/// layout or order and the GPU runs another. This file records, in a kernel, the move of every
/// thread and pass of sampled blocks and compares each with the host's, field by field.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "device_buffer.hpp"
#include "error.hpp"
#include "kernel.hpp"
#include "step.hpp"

namespace tt {

/// One move as recorded: inside, the global offset and up to kMaxSlots tile slots.
struct MoveRecord {
  static constexpr int kMaxSlots = 4;  ///< The widest move of the course: 16 bytes of floats.
  std::int64_t global;                  ///< Move::global.
  int inside;                           ///< Move::inside.
  int slots;                            ///< How many slots the move has.
  int slot[kMaxSlots];                  ///< Move::slot_of(k).
};

/// @p m as a record.
template <int N>
TT_HD MoveRecord record_of(const Move<N>& m) {
  static_assert(N <= MoveRecord::kMaxSlots, "a move wider than MoveRecord holds");
  MoveRecord r{};
  r.global = m.global;
  r.inside = m.inside ? 1 : 0;
  r.slots = N;
  for (int k = 0; k < N; ++k) r.slot[k] = m.slot_of(k);
  return r;
}

namespace detail {

/// Moves recorded per block: every thread's load passes, then its store passes.
template <class W>
TT_HD std::size_t moves_per_block(dim3 block) {
  return static_cast<std::size_t>(block.x) * block.y * block.z *
         static_cast<std::size_t>(W::kLoadPasses + W::kStorePasses);
}

/// Record @p i of thread @p t in pass @p pass of the load (@p store false) or store phase.
template <class W>
TT_HD std::size_t record_index(std::size_t threads, int t, bool store, int pass) {
  return (static_cast<std::size_t>(store ? W::kLoadPasses + pass : pass)) * threads +
         static_cast<std::size_t>(t);
}

}  // namespace detail

/// Block b of this launch plays block @p blocks[b] of a @p grid grid and records every move
/// of its threads.
template <class W>
__global__ void record_moves(const uint3* blocks, dim3 grid, int rows, int cols, MoveRecord* out) {
  const Thread me{blocks[blockIdx.x], threadIdx, blockDim, grid};
  const std::size_t threads = static_cast<std::size_t>(blockDim.x) * blockDim.y * blockDim.z;
  MoveRecord* mine = out + blockIdx.x * detail::moves_per_block<W>(blockDim);
  for (int p = 0; p < W::kLoadPasses; ++p)
    mine[detail::record_index<W>(threads, me.linear(), false, p)] =
        record_of(W::load(me, p, rows, cols));
  for (int p = 0; p < W::kStorePasses; ++p)
    mine[detail::record_index<W>(threads, me.linear(), true, p)] =
        record_of(W::store(me, p, rows, cols));
}

/// The blocks compared on a @p grid grid: every block of a grid of up to 2048 blocks; else
/// the corners, the middles of the edges and the centre, and 512 blocks drawn from a fixed
/// sequence.
inline std::vector<uint3> sampled_blocks(dim3 grid) {
  std::vector<uint3> b;
  const std::uint64_t n = static_cast<std::uint64_t>(grid.x) * grid.y * grid.z;
  const auto at = [&](std::uint64_t i) {
    return uint3{static_cast<unsigned>(i % grid.x), static_cast<unsigned>(i / grid.x % grid.y),
                 static_cast<unsigned>(i / grid.x / grid.y)};
  };
  if (n <= 2048) {
    for (std::uint64_t i = 0; i < n; ++i) b.push_back(at(i));
    return b;
  }
  for (unsigned z : {0u, grid.z - 1})
    for (unsigned y : {0u, grid.y / 2, grid.y - 1})
      for (unsigned x : {0u, grid.x / 2, grid.x - 1}) b.push_back({x, y, z});
  std::uint64_t s = 0x9e3779b97f4a7c15ull;
  for (int k = 0; k < 512; ++k) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    b.push_back(at((s >> 11) % n));
  }
  return b;
}

/// Runs W's moves on the GPU for the sampled blocks of problem @p pb and compares each with
/// the host's; returns the first few differences (none: the two compilers agree).
template <class W>
Problems compare_device_moves(const Problem& pb) {
  const Launch l = W::launch(pb);
  const std::vector<uint3> blocks = sampled_blocks(l.grid);
  const std::size_t per_block = detail::moves_per_block<W>(l.block);
  const std::size_t threads = static_cast<std::size_t>(l.block.x) * l.block.y * l.block.z;
  const int rows = static_cast<int>(pb.shape.rows), cols = static_cast<int>(pb.shape.cols);
  Problems found;
  // In batches, so that the records of a wide block stay small.
  const std::size_t batch = 256;
  DeviceBuffer<uint3> d_blocks(batch);
  DeviceBuffer<MoveRecord> d_moves(batch * per_block);
  std::vector<MoveRecord> got(batch * per_block);
  for (std::size_t first = 0; first < blocks.size() && found.size() < 4; first += batch) {
    const std::size_t count = std::min(batch, blocks.size() - first);
    TT_CUDA_CHECK(cudaMemcpy(d_blocks.get(), blocks.data() + first, count * sizeof(uint3),
                             cudaMemcpyHostToDevice));
    record_moves<W><<<static_cast<unsigned>(count), l.block>>>(d_blocks.get(), l.grid, rows, cols,
                                                               d_moves.get());
    TT_CHECK_LAUNCH();
    TT_CUDA_CHECK(cudaMemcpy(got.data(), d_moves.get(), count * per_block * sizeof(MoveRecord),
                             cudaMemcpyDeviceToHost));
    for (std::size_t b = 0; b < count && found.size() < 4; ++b) {
      for (unsigned t = 0; t < threads && found.size() < 4; ++t) {
        const uint3 tid{static_cast<unsigned>(t % l.block.x),
                        static_cast<unsigned>(t / l.block.x % l.block.y),
                        static_cast<unsigned>(t / l.block.x / l.block.y)};
        const Thread me{blocks[first + b], tid, l.block, l.grid};
        for (int store = 0; store < 2; ++store) {
          const int passes = store ? W::kStorePasses : W::kLoadPasses;
          for (int p = 0; p < passes; ++p) {
            const MoveRecord host =
                record_of(store ? W::store(me, p, rows, cols) : W::load(me, p, rows, cols));
            const MoveRecord& dev =
                got[b * per_block + detail::record_index<W>(threads, me.linear(), store, p)];
            bool same = host.inside == dev.inside && host.global == dev.global;
            for (int k = 0; k < host.slots; ++k) same = same && host.slot[k] == dev.slot[k];
            if (same) continue;
            std::ostringstream os;
            const auto text = [&](const MoveRecord& r) {
              std::ostringstream m;
              m << (r.inside ? "inside" : "outside") << ", global " << r.global << ", slot "
                << r.slot[0];
              return m.str();
            };
            os << "block (" << me.block.x << ", " << me.block.y << ", " << me.block.z
               << "), thread " << me.linear() << ", " << (store ? "store" : "load") << " pass " << p
               << ": the GPU computes " << text(dev) << ", the CPU " << text(host);
            found.push_back(os.str());
            break;
          }
        }
      }
    }
  }
  return found;
}

}  // namespace tt
