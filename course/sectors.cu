// What a 32-byte sector costs when it is written in parts. A transpose whose output rows do not
// start on a sector (4099 x 8191, say) writes the first and last sector of every row piece in
// two parts, from two blocks; chapter 08 found that the order of the blocks changes its time
// by almost half with the same DRAM bytes. This program isolates the mechanism: it writes a
// buffer of whole sectors in several ways and times each (scripts/sector_costs.py adds
// Nsight Compute's L2 and DRAM counters):
//
//   whole      each warp instruction writes 512 contiguous bytes: 16 whole sectors;
//   halves D   each sector in two 16-byte halves from two instructions: the first half by
//              block b, the second by block b + D (D = 0: the same thread, one instruction
//              after the other; D = 1: the next block; larger D: further apart in time);
//   half-only  only the first half of each sector is written (never completed).
//
// Every mode writes the same bytes (half-only half of them) with the same number of threads,
// so a difference in time is the cost of how the sectors arrive.
//
// Run:   sectors                               # every mode, 1 GiB, beside each other
//        sectors --mode halves --distance 64 --bytes 256M
//        sectors --list

#include <cuda_runtime.h>

#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "cli.hpp"
#include "device.hpp"
#include "device_buffer.hpp"
#include "error.hpp"
#include "runner.hpp"
#include "timing.hpp"

namespace {

constexpr int kThreads = 256;  ///< Threads a block; each block owns a chunk of 256 sectors.

/// Whole sectors: block b writes its chunk of 256 sectors (8 KB) with two 16-byte stores a
/// thread; the 32 lanes of a warp write 512 contiguous bytes an instruction, 16 whole sectors.
__global__ void write_whole(uint4* __restrict__ out, std::int64_t chunks) {
  const std::int64_t b = blockIdx.x;
  if (b >= chunks) return;
  const uint4 v{static_cast<unsigned>(b), threadIdx.x, 1u, 2u};
  uint4* chunk = out + b * kThreads * 2;
  chunk[threadIdx.x] = v;             // lanes 0..31: 512 contiguous bytes, 16 whole sectors
  chunk[kThreads + threadIdx.x] = v;  // the chunk's second half
}

/// Halves: sector s = 256 b + t; its first half is written by block b (thread t), its second
/// by block b + distance, whose thread t writes the second half of chunk b's sector t.
/// half_only: only the first halves.
__global__ void write_halves(uint4* __restrict__ out, std::int64_t chunks, std::int64_t distance,
                             bool half_only) {
  const std::int64_t b = blockIdx.x;
  if (b >= chunks) return;
  const uint4 v{static_cast<unsigned>(b), threadIdx.x, 3u, 4u};
  out[(b * kThreads + threadIdx.x) * 2] = v;  // the first half of this block's sector t
  if (half_only) return;
  const std::int64_t owner = ((b - distance) % chunks + chunks) % chunks;
  out[(owner * kThreads + threadIdx.x) * 2 + 1] = v;  // the second half of another's
}

/// One way of writing the buffer.
struct Mode {
  std::string name;       ///< "whole", "halves", "half-only"
  std::int64_t distance;  ///< blocks between the two halves' writers (halves only)
};

int run(int argc, char** argv) {
  std::string mode = "all", bytes_text = "1G";
  long long distance = -1;
  int reps = 20, device = 0;
  bool list = false;
  CLI::App app{"sectors: the cost of writing 32-byte sectors in parts, against whole"};
  app.add_option("-m,--mode", mode, "whole, halves, half-only, or all")
      ->check(CLI::IsMember({"all", "whole", "halves", "half-only"}));
  app.add_option("--distance", distance,
                 "With --mode halves: blocks between the writers of a sector's two halves "
                 "(default: 0, 1, 8, 64, 1024 and half the grid)")
      ->check(tt::whole_number(0, 1000000000));
  app.add_option("--bytes", bytes_text, "Bytes to write: a count, or with K, M or G");
  app.add_option("--reps", reps, "Timed launches a mode (median reported)")
      ->check(tt::whole_number(1, 10000));
  tt::add_course_options(app, device, list,
                         "Print the modes the options ask for and exit (no GPU)");
  if (!tt::parse_app(app, argc, argv, std::cout)) return tt::kExitOk;
  const std::size_t bytes = tt::parse_bytes("--bytes", bytes_text);
  const std::size_t chunk_bytes = kThreads * 32;
  if (bytes < chunk_bytes || bytes % chunk_bytes != 0)
    throw tt::UsageError("--bytes: must be a multiple of " + std::to_string(chunk_bytes) +
                         " (256 sectors of 32 bytes)");
  if (distance >= 0 && mode != "halves")
    throw tt::UsageError("--distance applies to --mode halves");
  const auto chunks = static_cast<std::int64_t>(bytes / chunk_bytes);
  if (distance >= chunks)
    throw tt::UsageError("--distance: " + std::to_string(distance) + " blocks, but the grid has " +
                         std::to_string(chunks));

  std::vector<Mode> modes;
  if (mode == "all" || mode == "whole") modes.push_back({"whole", 0});
  if (mode == "all" || mode == "halves") {
    if (distance >= 0) {
      modes.push_back({"halves", distance});
    } else {
      for (std::int64_t d : {std::int64_t{0}, std::int64_t{1}, std::int64_t{8}, std::int64_t{64},
                             std::int64_t{1024}, chunks / 2})
        if (d < chunks) modes.push_back({"halves", d});
    }
  }
  if (mode == "all" || mode == "half-only") modes.push_back({"half-only", 0});
  if (list) {
    for (const Mode& m : modes)
      std::cout << m.name << (m.name == "halves" ? " --distance " + std::to_string(m.distance) : "")
                << ": " << bytes << " bytes, " << chunks << " blocks of " << kThreads
                << " threads\n";
    return tt::kExitOk;
  }

  const tt::DeviceInfo dev = tt::select_device(device);
  std::cout << tt::describe(dev) << "\n";
  tt::DeviceBuffer<uint4> out(bytes / 16);
  std::cout << "  mode        distance   median ms    GB/s written\n";
  for (const Mode& m : modes) {
    const auto launch = [&] {
      if (m.name == "whole")
        write_whole<<<static_cast<unsigned>(chunks), kThreads>>>(out.get(), chunks);
      else
        write_halves<<<static_cast<unsigned>(chunks), kThreads>>>(out.get(), chunks, m.distance,
                                                                  m.name == "half-only");
      TT_CHECK_LAUNCH();
    };
    const tt::Stats s = tt::time_launches(launch, 3, reps, nullptr);
    const double written = m.name == "half-only" ? bytes / 2.0 : static_cast<double>(bytes);
    std::cout << "  " << std::left << std::setw(11) << m.name << std::right << std::setw(9)
              << (m.name == "halves" ? std::to_string(m.distance) : "-") << std::fixed
              << std::setprecision(5) << std::setw(12) << s.median_ms << std::setprecision(1)
              << std::setw(16) << written / (s.median_ms * 1e6) << "\n";
  }
  return tt::kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  return tt::guarded("sectors", [&] { return run(argc, argv); });
}
