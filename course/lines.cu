// What a 128-byte line costs a load. A warp that reads 32 consecutive floats from an address
// that is not a multiple of 128 bytes touches two lines, and the L2 gets a request for each,
// even where every sector it touches is whole. At an odd row length nearly every load of a
// transpose's row piece starts so (steps 10 and 12). This program isolates the mechanism: it
// copies a buffer with 4-byte loads and stores, a warp moving 32 consecutive elements an
// instruction, with the loads, the stores or both shifted from the line by a few bytes:
//
//   aligned     loads and stores start on lines: one request for 4 whole sectors each;
//   load+32     loads start 32 bytes into a line: two requests, 4 whole sectors;
//   load+4      loads start 4 bytes into a line: two requests, 5 sectors (2 in part);
//   store+32    stores start 32 bytes into a line (loads aligned);
//   store+4     stores start 4 bytes into a line: sectors written in part;
//   both+32     loads and stores 32 bytes into a line.
//
// Every mode moves the same bytes with the same threads and instructions, so a difference in
// time is the cost of the lines and sectors the same bytes arrive in. Nsight Compute's
// lts__t_requests_srcunit_tex_op_read counts the requests.
//
// Run:   lines                        # every mode, 256 MiB copied, beside each other
//        lines --mode load+32 --bytes 64M
//        lines --list

#include <cuda_runtime.h>

#include <cstdint>
#include <iomanip>
#include <iostream>
#include <string>
#include <vector>

#include "cli.hpp"
#include "device.hpp"
#include "device_buffer.hpp"
#include "error.hpp"
#include "runner.hpp"
#include "timing.hpp"

namespace {

constexpr int kThreads = 256;  ///< Threads a block.
constexpr int kInFlight = 4;   ///< Loads a thread issues before its first store.

/// Copies n floats from in + load_shift to out + store_shift: each thread loads kInFlight
/// elements a grid's width apart, then stores them; a warp's lanes take consecutive elements.
__global__ void copy_shifted(const float* __restrict__ in, float* __restrict__ out, std::int64_t n,
                             int load_shift, int store_shift) {
  const std::int64_t t = std::int64_t{blockIdx.x} * blockDim.x + threadIdx.x,
                     width = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t base = t; base < n; base += width * kInFlight) {
    float v[kInFlight];
#pragma unroll
    for (int k = 0; k < kInFlight; ++k)
      if (base + k * width < n) v[k] = in[load_shift + base + k * width];
#pragma unroll
    for (int k = 0; k < kInFlight; ++k)
      if (base + k * width < n) out[store_shift + base + k * width] = v[k];
  }
}

/// One way of placing the copy against the lines: the shifts in bytes.
struct Mode {
  const char* name;
  int load_bytes, store_bytes;
};

constexpr Mode kModes[] = {{"aligned", 0, 0}, {"load+32", 32, 0},  {"load+4", 4, 0},
                           {"store+32", 0, 32}, {"store+4", 0, 4}, {"both+32", 32, 32}};

int run(int argc, char** argv) {
  std::string mode = "all", bytes_text = "256M";
  int reps = 20, device = 0;
  bool list = false;
  std::vector<std::string> names = {"all"};
  for (const Mode& m : kModes) names.push_back(m.name);
  CLI::App app{"lines: the cost of loads and stores that cross 128-byte lines, against aligned"};
  app.add_option("-m,--mode", mode, "aligned, load+32, load+4, store+32, store+4, both+32, or all")
      ->check(CLI::IsMember(names));
  app.add_option("--bytes", bytes_text, "Bytes to copy: a count, or with K, M or G");
  app.add_option("--reps", reps, "Timed launches a mode (median reported)")
      ->check(tt::whole_number(1, 10000));
  tt::add_course_options(app, device, list,
                         "Print the modes the options ask for and exit (no GPU)");
  if (!tt::parse_app(app, argc, argv, std::cout)) return tt::kExitOk;
  const std::size_t bytes = tt::parse_bytes("--bytes", bytes_text);
  if (bytes < 128 || bytes % 128 != 0)
    throw tt::UsageError("--bytes: must be a whole number of 128-byte lines, at least one");
  const auto n = static_cast<std::int64_t>(bytes / sizeof(float));

  std::vector<Mode> modes;
  for (const Mode& m : kModes)
    if (mode == "all" || mode == m.name) modes.push_back(m);
  if (list) {
    for (const Mode& m : modes)
      std::cout << m.name << ": " << bytes << " bytes, loads " << m.load_bytes
                << " bytes into a line, stores " << m.store_bytes << "\n";
    return tt::kExitOk;
  }

  const tt::DeviceInfo dev = tt::select_device(device);
  std::cout << tt::describe(dev) << "\n";
  constexpr std::int64_t kSlack = 32;  // elements past the end, for the shifts (128 bytes)
  tt::DeviceBuffer<float> in(static_cast<std::size_t>(n + kSlack)),
      out(static_cast<std::size_t>(n + kSlack));
  TT_CUDA_CHECK(cudaMemset(in.get(), 0, (n + kSlack) * sizeof(float)));
  const unsigned blocks = static_cast<unsigned>(dev.sm_count) * 8;
  std::cout << "  mode        median ms    GB/s (read + written)\n";
  for (const Mode& m : modes) {
    const auto launch = [&] {
      copy_shifted<<<blocks, kThreads>>>(in.get(), out.get(), n, m.load_bytes / 4,
                                         m.store_bytes / 4);
      TT_CHECK_LAUNCH();
    };
    const tt::Stats s = tt::time_launches(launch, 3, reps, nullptr);
    std::cout << "  " << std::left << std::setw(11) << m.name << std::right << std::fixed
              << std::setprecision(5) << std::setw(10) << s.median_ms << std::setprecision(1)
              << std::setw(14) << 2.0 * bytes / (s.median_ms * 1e6) << "\n";
  }
  return tt::kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  return tt::guarded("lines", [&] { return run(argc, argv); });
}
