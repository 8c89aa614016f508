// The latency of one global load, measured with a pointer chase: one thread follows a random
// cycle through a buffer, so each load's address is the previous load's data and no two
// loads overlap. The time per step is the load's latency. Working sets from a few KiB (L1)
// through a few MiB (L2) to hundreds of MiB (device memory) show each level.
//
// Little's law turns it into a bandwidth: an SM that keeps B bytes of loads outstanding,
// each answered L nanoseconds later, moves at most B / L bytes a nanosecond. The chapters
// from 05 on predict each kernel's bandwidth from its bytes in flight (scripts/sass_check.py)
// and the device-memory latency measured here; --under-load measures it again while a copy
// kernel streams on every SM (the chasing thread shares its SM with copy blocks), which is
// the latency a fast kernel's loads see.
//
// The latency grows with the traffic around it. --load-sweep measures it at several offered
// loads: a copy kernel of 0 to 7 x SMs blocks streams through 256 MiB (far more than the L2)
// until the chase ends, and its own bandwidth during the chase is recorded beside the
// latency, with the median, the fastest and the slowest of many timed chases. The bandwidth
// model (scripts/bandwidth_model.py) reads that curve: the latency a kernel's loads see at the
// bandwidth it offers.
//
// Run:   latency                                # 16K, 4M, 16M (L2) and 1G working sets
//        latency --sizes 64M,1G --under-load
//        latency --out latency.csv
//        latency --sizes 4M,1G --load-sweep --out latency-load.csv

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

/// Follows the chain for @p steps loads from the slot where the last chase stopped (@p at,
/// which it updates): chase after chase walks on through the whole cycle, so that a working
/// set larger than the L2 is not cut down to the first slots of the cycle.
__global__ void chase(const std::uint32_t* __restrict__ next, int steps, std::uint32_t* at) {
  std::uint32_t j = *at;
  for (int i = 0; i < steps; ++i) j = next[j];
  *at = j;
}

/// Copies the @p n 16-byte vectors of a buffer pass after pass, each pass a grid-stride loop
/// that reads every vector once, until @p stop is set (or about 4 x 10^9 clock cycles pass, so
/// that it always ends), and adds the vectors it copied to @p copied: the offered load of
/// --load-sweep, whose bandwidth is the bytes copied over its time.
__global__ void stream_until(const uint4* __restrict__ in, uint4* __restrict__ out, std::int64_t n,
                             const volatile int* stop, unsigned long long* copied) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  unsigned long long moved = 0;
  const long long start = clock64();
  for (bool done = false; !done;)
    for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
         i < n && !done; i += stride) {
      out[i] = in[i];
      if ((++moved & 31) == 0) done = *stop || clock64() - start > 4000000000LL;
    }
  atomicAdd(copied, moved);
}

/// One measurement: the working set and the nanoseconds a load.
struct Row {
  std::size_t bytes;
  bool loaded;
  double ns;
};

/// The chain of a working set of @p bytes: a random cycle through its slots, @p stride bytes
/// apart (Sattolo's algorithm: every slot once, in one loop); slot i holds the next's index.
std::vector<std::uint32_t> random_cycle(std::size_t bytes, int stride, std::mt19937_64& rng) {
  const std::size_t slots = bytes / static_cast<std::size_t>(stride), step = stride / 4;
  std::vector<std::uint32_t> order(slots);
  std::iota(order.begin(), order.end(), 0u);
  for (std::size_t i = slots - 1; i > 0; --i)
    std::swap(order[i], order[std::uniform_int_distribution<std::size_t>(0, i - 1)(rng)]);
  std::vector<std::uint32_t> next(bytes / 4, 0);
  for (std::size_t i = 0; i < slots; ++i)
    next[order[i] * step] = static_cast<std::uint32_t>(order[(i + 1) % slots] * step);
  return next;
}

/// --load-sweep: for each working set and each size of copy (blocks of 256 threads), @p reps
/// times: start the copy, chase once untimed and five times timed on another stream, stop the
/// copy, and time it. Prints and returns the CSV: the chase's median, fastest and slowest
/// nanoseconds a load over all timed chases, and the copy's median bandwidth (read + write).
std::string load_sweep(const tt::DeviceInfo& dev, int clock_khz, const std::vector<std::size_t>& bytes,
                       int stride, int steps, int reps) {
  const std::int64_t vectors = (std::int64_t{256} << 20) / 16;  // 256 MiB: well above the L2
  tt::DeviceBuffer<uint4> src(vectors), dst(vectors);
  TT_CUDA_CHECK(cudaMemset(src.get(), 0, src.bytes()));
  tt::DeviceBuffer<std::uint32_t> result(1);
  tt::DeviceBuffer<int> stop(1);
  tt::DeviceBuffer<unsigned long long> copied(1);
  cudaStream_t chase_stream = nullptr, load_stream = nullptr;
  TT_CUDA_CHECK(cudaStreamCreateWithFlags(&chase_stream, cudaStreamNonBlocking));
  TT_CUDA_CHECK(cudaStreamCreateWithFlags(&load_stream, cudaStreamNonBlocking));
  cudaEvent_t begin = nullptr, end = nullptr;
  TT_CUDA_CHECK(cudaEventCreate(&begin));
  TT_CUDA_CHECK(cudaEventCreate(&end));
  std::vector<cudaEvent_t> chase_events(10);
  for (cudaEvent_t& e : chase_events) TT_CUDA_CHECK(cudaEventCreate(&e));
  const int sms = dev.sm_count;
  // Blocks of copy: none, then 1/32 of the SMs up to 7 an SM (room stays for the chaser),
  // closer together where the latency turns up.
  const std::vector<int> levels = {0,       std::max(1, sms / 32), std::max(1, sms / 16),
                                   std::max(1, sms / 8), std::max(1, sms / 4), sms / 2, sms,
                                   sms * 3 / 2, 2 * sms,  3 * sms,  4 * sms, 5 * sms, 7 * sms};
  const int chase_steps = steps / 10;
  std::mt19937_64 rng(2026);
  std::ostringstream csv;
  csv << std::fixed
      << "device,sms,bytes,stride,copy_blocks,copy_gbps,ns_median,ns_min,ns_max,samples,"
         "cycles_median\n";
  std::cout << "\n  working set   copy blocks   copy GB/s   ns a load: median     min     max"
               "   samples\n";
  for (std::size_t b : bytes) {
    const std::vector<std::uint32_t> next = random_cycle(b, stride, rng);
    tt::DeviceBuffer<std::uint32_t> chain(next.size());
    TT_CUDA_CHECK(cudaMemcpy(chain.get(), next.data(), chain.bytes(), cudaMemcpyHostToDevice));
    TT_CUDA_CHECK(cudaMemset(result.get(), 0, result.bytes()));  // the chase starts at slot 0
    chase<<<1, 1, 0, chase_stream>>>(chain.get(), static_cast<int>(std::min<std::size_t>(
                                                       b / static_cast<std::size_t>(stride), 1u << 20)),
                                     result.get());
    TT_CHECK_LAUNCH();
    for (int blocks : levels) {
      std::vector<double> ns, gbps;
      for (int r = 0; r < reps; ++r) {
        TT_CUDA_CHECK(cudaMemset(stop.get(), 0, sizeof(int)));
        TT_CUDA_CHECK(cudaMemset(copied.get(), 0, sizeof(unsigned long long)));
        TT_CUDA_CHECK(cudaDeviceSynchronize());
        if (blocks > 0) {
          TT_CUDA_CHECK(cudaEventRecord(begin, load_stream));
          stream_until<<<blocks, 256, 0, load_stream>>>(src.get(), dst.get(), vectors, stop.get(),
                                                        copied.get());
          TT_CHECK_LAUNCH();
          TT_CUDA_CHECK(cudaEventRecord(end, load_stream));
        }
        // One untimed chase, then five timed ones, each between its own pair of events.
        chase<<<1, 1, 0, chase_stream>>>(chain.get(), chase_steps, result.get());
        TT_CHECK_LAUNCH();
        for (int t = 0; t < 5; ++t) {
          TT_CUDA_CHECK(cudaEventRecord(chase_events[2 * t], chase_stream));
          chase<<<1, 1, 0, chase_stream>>>(chain.get(), chase_steps, result.get());
          TT_CHECK_LAUNCH();
          TT_CUDA_CHECK(cudaEventRecord(chase_events[2 * t + 1], chase_stream));
        }
        TT_CUDA_CHECK(cudaStreamSynchronize(chase_stream));
        for (int t = 0; t < 5; ++t) {
          float ms = 0;
          TT_CUDA_CHECK(cudaEventElapsedTime(&ms, chase_events[2 * t], chase_events[2 * t + 1]));
          ns.push_back(ms * 1e6 / chase_steps);
        }
        TT_CUDA_CHECK(cudaMemsetAsync(stop.get(), 1, sizeof(int), chase_stream));
        TT_CUDA_CHECK(cudaDeviceSynchronize());
        if (blocks > 0) {
          float ms = 0;
          unsigned long long moved = 0;
          TT_CUDA_CHECK(cudaEventElapsedTime(&ms, begin, end));
          TT_CUDA_CHECK(cudaMemcpy(&moved, copied.get(), sizeof moved, cudaMemcpyDeviceToHost));
          gbps.push_back(2.0 * 16.0 * static_cast<double>(moved) / (ms * 1e6));
        }
      }
      const tt::Stats lat = tt::summarize(ns);
      const double copy = gbps.empty() ? 0.0 : tt::summarize(gbps).median_ms;
      std::cout << std::setw(13) << b << std::setw(14) << blocks << std::setw(12) << std::fixed
                << std::setprecision(0) << copy << std::setw(21) << std::setprecision(1)
                << lat.median_ms << std::setw(8) << lat.min_ms << std::setw(8) << lat.max_ms
                << std::setw(10) << reps * 5 << "\n";
      csv << '"' << dev.name << "\"," << sms << "," << b << "," << stride << "," << blocks << ","
          << std::setprecision(1) << copy << "," << std::setprecision(2) << lat.median_ms << ","
          << lat.min_ms << "," << lat.max_ms << "," << reps * 5 << "," << std::setprecision(0)
          << lat.median_ms * clock_khz / 1e6 << "\n";
    }
  }
  TT_CUDA_CHECK(cudaEventDestroy(begin));
  TT_CUDA_CHECK(cudaEventDestroy(end));
  for (cudaEvent_t e : chase_events) TT_CUDA_CHECK(cudaEventDestroy(e));
  TT_CUDA_CHECK(cudaStreamDestroy(chase_stream));
  TT_CUDA_CHECK(cudaStreamDestroy(load_stream));
  std::cout << "  (" << chase_steps << " dependent loads a timed chase, " << stride
            << " bytes apart; the copy streams 256 MiB round and round until the chase ends; "
               "SM clock "
            << clock_khz / 1000 << " MHz)\n";
  return csv.str();
}

int run(int argc, char** argv) {
  std::vector<std::string> sizes = {"16K", "4M", "16M", "1G"};
  int stride = 128, steps = 200000, device = 0;
  bool under_load = false, list = false, sweep = false;
  int reps = 9;
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
  app.add_flag("--load-sweep", sweep,
               "Chase under copies of several sizes instead (0 to 7 x SMs blocks), recording "
               "each copy's bandwidth during the chase");
  app.add_option("--reps", reps, "--load-sweep: copies a level (each with 5 timed chases)")
      ->check(tt::whole_number(1, 1000));
  app.add_option("-o,--out", out, "Also write the rows as CSV to this file");
  tt::add_course_options(app, device, list,
                         "Print the measurements the options ask for and exit (no GPU)");
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
  if (sweep && under_load)
    throw tt::UsageError("--load-sweep: measures its own loads; leave out --under-load");
  if (list) {
    if (sweep) {
      for (std::size_t b : bytes)
        std::cout << b << " bytes: chases of " << steps / 10 << " loads under copies of 0, 1/32, "
                  << "1/16, 1/8, 1/4, 1/2, 1, 1.5, 2, 3, 4, 5 and 7 blocks an SM, " << reps << " copies a level\n";
      return tt::kExitOk;
    }
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
  if (sweep) {
    const std::string csv = load_sweep(dev, clock_khz, bytes, stride, steps, reps);
    if (!out.empty()) {
      std::ofstream f(out);
      f << csv;
      if (!f) throw tt::UsageError("--out: cannot write " + out);
    }
    return tt::kExitOk;
  }

  tt::DeviceBuffer<std::uint32_t> result(1);
  // The load for --under-load: the sweep's copy at its top level, 7 blocks an SM, until the
  // timed chases end.
  const std::int64_t vectors = (std::int64_t{256} << 20) / 16;
  tt::DeviceBuffer<uint4> src(under_load ? vectors : 0), dst(under_load ? vectors : 0);
  tt::DeviceBuffer<int> stop(1);
  tt::DeviceBuffer<unsigned long long> copied(1);
  cudaStream_t chase_stream = nullptr, load_stream = nullptr;
  TT_CUDA_CHECK(cudaStreamCreateWithFlags(&chase_stream, cudaStreamNonBlocking));
  TT_CUDA_CHECK(cudaStreamCreateWithFlags(&load_stream, cudaStreamNonBlocking));

  std::vector<Row> rows;
  std::mt19937_64 rng(2026);
  for (std::size_t b : bytes) {
    const std::size_t slots = b / static_cast<std::size_t>(stride);
    const std::vector<std::uint32_t> next = random_cycle(b, stride, rng);
    tt::DeviceBuffer<std::uint32_t> chain(next.size());
    TT_CUDA_CHECK(cudaMemcpy(chain.get(), next.data(), chain.bytes(), cudaMemcpyHostToDevice));
    TT_CUDA_CHECK(cudaMemset(result.get(), 0, result.bytes()));  // the chase starts at slot 0

    for (bool loaded : {false, true}) {
      if (loaded && !under_load) continue;
      if (loaded) {  // every SM streams, with room left for the chasing block
        TT_CUDA_CHECK(cudaMemset(stop.get(), 0, sizeof(int)));
        TT_CUDA_CHECK(cudaDeviceSynchronize());
        stream_until<<<dev.sm_count * 7, 256, 0, load_stream>>>(src.get(), dst.get(), vectors,
                                                                stop.get(), copied.get());
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
      if (loaded) TT_CUDA_CHECK(cudaMemsetAsync(stop.get(), 1, sizeof(int), chase_stream));
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
