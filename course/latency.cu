// The latency of one global load, measured with a pointer chase: one thread follows a random
// cycle through a buffer, so each load's address is the previous load's data and no two
// loads overlap. The time per step is the load's latency. Working sets from a few KiB (L1)
// through a few MiB (L2) to hundreds of MiB (device memory) show each level.
//
// Little's law turns it into a bandwidth: an SM that keeps B bytes of loads outstanding,
// each answered L nanoseconds later, moves at most B / L bytes a nanosecond. The chapters
// from 05 on predict each kernel's bandwidth from its bytes in flight (scripts/sass_check.py)
// and the device-memory latency measured here; --under-load measures it again while a copy
// kernel keeps every other SM streaming, which is the latency a fast kernel's loads see.
//
// Run:   latency                                # 16K, 4M, 16M (L2) and 1G working sets
//        latency --sizes 64M,1G --under-load
//        latency --out latency.csv

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <numeric>
#include <random>
#include <sstream>
#include <vector>

#include "cli.hpp"
#include "device.hpp"
#include "device_buffer.hpp"
#include "error.hpp"
#include "runner.hpp"
#include "timing.hpp"

namespace {

/// Follows the chain from slot 0 for @p steps loads; the result keeps the loads alive.
__global__ void chase(const std::uint32_t* __restrict__ next, int steps, std::uint32_t* result) {
  std::uint32_t j = 0;
  for (int i = 0; i < steps; ++i) j = next[j];
  *result = j;
}

/// Copies @p n 16-byte vectors @p rounds times with a grid-stride loop: the load under which
/// --under-load chases.
__global__ void stream_copy(const uint4* __restrict__ in, uint4* __restrict__ out, std::int64_t n,
                            int rounds) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (int r = 0; r < rounds; ++r)
    for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
         i += stride)
      out[i] = in[i];
}

/// One measurement: the working set and the nanoseconds a load.
struct Row {
  std::size_t bytes;
  bool loaded;
  double ns;
};

int run(int argc, char** argv) {
  std::vector<std::string> sizes = {"16K", "4M", "16M", "1G"};
  int stride = 128, steps = 200000, device = 0;
  bool under_load = false, list = false;
  std::string out;
  CLI::App app{"latency: the latency of one global load (a pointer chase), per working-set size"};
  app.add_option("-s,--sizes", sizes, "Working sets: bytes, or with K, M or G, comma separated")
      ->delimiter(',');
  app.add_option("--stride", stride, "Bytes between the chased slots (each step a new line)")
      ->check(tt::whole_number(4, 1 << 20));
  app.add_option("--steps", steps, "Loads in the timed chase")
      ->check(tt::whole_number(1000, 100000000));
  app.add_flag("--under-load", under_load,
               "Also chase while a copy kernel streams through device memory on the other SMs");
  app.add_option("-o,--out", out, "Also write the rows as CSV to this file");
  app.add_option("-d,--device", device, "CUDA device index")->check(tt::whole_number(0, 1023));
  app.add_flag("--list", list, "Print the measurements the options ask for and exit (no GPU)");
  app.footer(
      "Exit status: 0 ok, 2 bad command line, 3 no CUDA device, 4 CUDA error, 5 out of "
      "memory.");
  if (!tt::parse_app(app, argc, argv, std::cout)) return tt::kExitOk;
  if (stride % 4 != 0) throw tt::UsageError("--stride: must be a multiple of 4 bytes");
  std::vector<std::size_t> bytes;
  for (const auto& s : sizes) {
    bytes.push_back(tt::parse_bytes("--sizes", s));
    if (bytes.back() / static_cast<std::size_t>(stride) < 2)
      throw tt::UsageError("--sizes: " + s + " holds fewer than two slots of --stride bytes");
    if (bytes.back() / static_cast<std::size_t>(stride) > 0xFFFFFFFFull)
      throw tt::UsageError("--sizes: " + s + " holds more slots than 32-bit indices reach");
  }
  if (list) {
    for (std::size_t b : bytes)
      std::cout << b << " bytes, " << b / static_cast<std::size_t>(stride) << " slots of " << stride
                << " bytes, " << steps << " loads" << (under_load ? ", idle and under load" : "")
                << "\n";
    return tt::kExitOk;
  }

  const tt::DeviceInfo dev = tt::select_device(device);
  std::cout << tt::describe(dev) << "\n";
  int clock_khz = 0;
  TT_CUDA_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, device));

  tt::DeviceBuffer<std::uint32_t> result(1);
  // The load for --under-load: a copy of 1 GiB on every SM but one block's room.
  const std::int64_t vectors = (std::int64_t{1} << 30) / 16;
  tt::DeviceBuffer<uint4> src(under_load ? vectors : 0), dst(under_load ? vectors : 0);
  cudaStream_t chase_stream = nullptr, load_stream = nullptr;
  TT_CUDA_CHECK(cudaStreamCreateWithFlags(&chase_stream, cudaStreamNonBlocking));
  TT_CUDA_CHECK(cudaStreamCreateWithFlags(&load_stream, cudaStreamNonBlocking));

  std::vector<Row> rows;
  std::mt19937_64 rng(2026);
  for (std::size_t b : bytes) {
    // A random cycle through the slots (Sattolo's algorithm): every slot once, in one loop.
    const std::size_t slots = b / static_cast<std::size_t>(stride), step = stride / 4;
    std::vector<std::uint32_t> order(slots);
    std::iota(order.begin(), order.end(), 0u);
    for (std::size_t i = slots - 1; i > 0; --i)
      std::swap(order[i], order[std::uniform_int_distribution<std::size_t>(0, i - 1)(rng)]);
    std::vector<std::uint32_t> next(b / 4, 0);
    for (std::size_t i = 0; i < slots; ++i)
      next[order[i] * step] = static_cast<std::uint32_t>(order[(i + 1) % slots] * step);
    tt::DeviceBuffer<std::uint32_t> chain(next.size());
    TT_CUDA_CHECK(cudaMemcpy(chain.get(), next.data(), chain.bytes(), cudaMemcpyHostToDevice));

    for (bool loaded : {false, true}) {
      if (loaded && !under_load) continue;
      if (loaded) {  // every SM streams, with room left for the chasing block: about 0.1 s
        stream_copy<<<dev.sm_count * 7, 256, 0, load_stream>>>(src.get(), dst.get(), vectors, 200);
        TT_CHECK_LAUNCH();
      } else {  // one untimed pass over the cycle first: caches and address translation warm
        const int warm = static_cast<int>(std::min<std::size_t>(slots, 1u << 20));
        chase<<<1, 1, 0, chase_stream>>>(chain.get(), warm, result.get());
        TT_CHECK_LAUNCH();
      }
      const tt::Stats s = tt::time_launches(
          [&] {
            chase<<<1, 1, 0, chase_stream>>>(chain.get(), loaded ? steps / 10 : steps,
                                             result.get());
            TT_CHECK_LAUNCH();
          },
          0, 3, chase_stream);
      TT_CUDA_CHECK(cudaDeviceSynchronize());
      rows.push_back({b, loaded, s.median_ms * 1e6 / (loaded ? steps / 10 : steps)});
    }
  }
  TT_CUDA_CHECK(cudaStreamDestroy(chase_stream));
  TT_CUDA_CHECK(cudaStreamDestroy(load_stream));

  std::ostringstream csv;
  csv << std::fixed << "device,sms,bytes,stride,under_load,ns_per_load,cycles_per_load\n";
  std::cout << "\n  working set   under load   ns a load   SM cycles a load\n";
  for (const Row& r : rows) {
    const double cycles = r.ns * clock_khz / 1e6;
    std::cout << std::setw(13) << r.bytes << std::setw(13) << (r.loaded ? "yes" : "no")
              << std::setw(12) << std::fixed << std::setprecision(1) << r.ns << std::setw(19)
              << std::setprecision(0) << cycles << "\n";
    csv << '"' << dev.name << "\"," << dev.sm_count << "," << r.bytes << "," << stride << ","
        << (r.loaded ? "true" : "false") << "," << std::setprecision(2) << r.ns << ","
        << std::setprecision(0) << cycles << "\n";
  }
  std::cout << "  (" << steps << " dependent loads a timed chase, " << stride
            << " bytes apart in a random cycle; SM clock " << clock_khz / 1000 << " MHz)\n";
  if (!out.empty()) {
    std::ofstream f(out);
    f << csv.str();
    if (!f) throw tt::UsageError("--out: cannot write " + out);
  }
  return tt::kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  return tt::guarded("latency", [&] { return run(argc, argv); });
}
