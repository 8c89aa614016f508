// Shared-memory access patterns, one warp instruction at a time, for settling the access
// analyser's bank model against Nsight Compute (scripts/bank_patterns.py). Each pattern is the
// byte address every lane of a warp touches with one 4-, 8- or 16-byte access. Every warp of
// the launch stores to its pattern's addresses kReps times, then loads from them kReps times,
// and nothing else touches shared memory, so the wavefronts per instruction that Nsight
// Compute counts belong to the pattern alone. The analyser (common/analyser.hpp) predicts them
// from the same addresses.
//
// Run:   banks --list                       # the patterns and the analyser's predictions
//        banks --list --format json         # the same, one JSON object a pattern
//        banks --pattern w16-2way-quarter   # run one (under ncu, see scripts/bank_patterns.py)

#include <cuda_runtime.h>

#include <functional>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "07-swizzle/swizzle.hpp"
#include "analyser.hpp"
#include "cli.hpp"
#include "device.hpp"
#include "device_buffer.hpp"
#include "error.hpp"
#include "kernel.hpp"
#include "report.hpp"
#include "runner.hpp"

namespace {

constexpr int kReps = 256;          ///< Stores, then loads, each warp makes at its addresses.
constexpr int kBuffer = 32 * 1024;  ///< Shared bytes: 4 regions of kStep.
constexpr int kStep = 8192;         ///< Bytes between reps: a multiple of 128, so same banks.
constexpr int kThreads = 256, kBlocks = 264;  ///< 8 warps a block, 2 blocks an H100/H200 SM.

/// A pattern: its name, what it shows, the bytes each lane moves, and lane -> byte address.
struct Pattern {
  const char* name;
  const char* what;
  int width;
  int (*address)(int lane);
};

// The addresses, as __host__ __device__ functions: the kernel and the analyser call the same.
TT_HD int a_w4_ideal(int l) {
  return 4 * l;
}
TT_HD int a_w4_broadcast(int) {
  return 0;
}
TT_HD int a_w4_pairs(int l) {
  return 4 * (l / 2);
}
TT_HD int a_w4_2way(int l) {
  return 8 * l;
}
TT_HD int a_w4_32way(int l) {
  return 128 * l;
}
TT_HD int a_w8_ideal(int l) {
  return 8 * l;
}
TT_HD int a_w8_broadcast_in_phase(int l) {
  return 8 * (l / 2);
}
TT_HD int a_w8_broadcast_across(int l) {
  return 8 * (l % 16);
}
TT_HD int a_w8_2way(int l) {
  return 16 * l;
}
TT_HD int a_w16_ideal(int l) {
  return 16 * l;
}
TT_HD int a_w16_broadcast_in_quarter(int l) {
  return 16 * (l / 2);
}
TT_HD int a_w16_broadcast_across(int l) {
  return 16 * (l % 8);
}
/// Lane 7 of the first quarter-warp moves to the next 128-byte row, onto the banks of lane 6:
/// a 2-way conflict in one quarter of the warp, the other three conflict-free.
TT_HD int a_w16_2way_quarter(int l) {
  return l == 7 ? 128 + 16 * 6 : 16 * l;
}
TT_HD int a_w16_128_stride(int l) {
  return 128 * l;
}
/// Chapter 07's float gather (warp 0, element 0 of each 16-byte output vector): lane l reads
/// tile element (4 (l mod 8), l / 8) of a 64-wide float tile swizzled in 16-byte chunks, with
/// rows taken in groups of 4 (the step's form) or one at a time (the simple chunked form).
TT_HD int a_swizzle_group4(int l) {
  const int r = 4 * (l % 8), c = l / 8;
  return 4 * (r * 64 + step07::swizzle(r, c, 64, 4, 4));
}
TT_HD int a_swizzle_group1(int l) {
  const int r = 4 * (l % 8), c = l / 8;
  return 4 * (r * 64 + step07::swizzle(r, c, 64, 4, 1));
}

const std::vector<Pattern>& patterns() {
  static const std::vector<Pattern> p = {
      {"w4-ideal", "4 bytes, consecutive words", 4, a_w4_ideal},
      {"w4-broadcast", "4 bytes, every lane the same word", 4, a_w4_broadcast},
      {"w4-pairs", "4 bytes, lanes 2i and 2i+1 the same word", 4, a_w4_pairs},
      {"w4-2way", "4 bytes, every other word: 2 lanes a bank", 4, a_w4_2way},
      {"w4-32way", "4 bytes, a column of a 32-wide tile: one bank", 4, a_w4_32way},
      {"w8-ideal", "8 bytes, consecutive", 8, a_w8_ideal},
      {"w8-broadcast-in-phase", "8 bytes, pairs of lanes the same address", 8,
       a_w8_broadcast_in_phase},
      {"w8-broadcast-across", "8 bytes, lane l and lane l+16 the same address", 8,
       a_w8_broadcast_across},
      {"w8-2way", "8 bytes, every other 8-byte slot", 8, a_w8_2way},
      {"w16-ideal", "16 bytes, consecutive", 16, a_w16_ideal},
      {"w16-broadcast-in-quarter", "16 bytes, pairs of lanes the same address", 16,
       a_w16_broadcast_in_quarter},
      {"w16-broadcast-across", "16 bytes, the four quarter-warps the same 128 bytes", 16,
       a_w16_broadcast_across},
      {"w16-2way-quarter", "16 bytes, a 2-way conflict in the first quarter-warp only", 16,
       a_w16_2way_quarter},
      {"w16-128-stride", "16 bytes, 128 bytes apart: every lane in banks 0-3", 16,
       a_w16_128_stride},
      {"swizzle-group4", "chapter 07's gather, chunks swizzled by rows in groups of 4", 4,
       a_swizzle_group4},
      {"swizzle-group1", "chapter 07's gather, chunks swizzled row by row (group 1)", 4,
       a_swizzle_group1},
  };
  return p;
}

/// Each warp stores its pattern kReps times, then loads it kReps times; one global store a
/// thread keeps the loads.
template <int WIDTH>
__global__ void __launch_bounds__(kThreads) bank_kernel(int pattern, float* out) {
  using V = tt::Vec<float, WIDTH / 4>;
  __shared__ alignas(16) unsigned char buffer[kBuffer];
  const int lane = threadIdx.x % 32;
  int a = 0;
  switch (pattern) {  // device code cannot call through a host function pointer
#define TT_CASE(i, f) \
  case i:             \
    a = f(lane);      \
    break;
    TT_CASE(0, a_w4_ideal)
    TT_CASE(1, a_w4_broadcast) TT_CASE(2, a_w4_pairs) TT_CASE(3, a_w4_2way) TT_CASE(4, a_w4_32way)
        TT_CASE(5, a_w8_ideal) TT_CASE(6, a_w8_broadcast_in_phase) TT_CASE(7, a_w8_broadcast_across)
            TT_CASE(8, a_w8_2way) TT_CASE(9, a_w16_ideal) TT_CASE(10, a_w16_broadcast_in_quarter)
                TT_CASE(11, a_w16_broadcast_across) TT_CASE(12, a_w16_2way_quarter)
                    TT_CASE(13, a_w16_128_stride) TT_CASE(14, a_swizzle_group4)
                        TT_CASE(15, a_swizzle_group1)
#undef TT_CASE
                            default : break;
  }
  V v;
  for (int k = 0; k < WIDTH / 4; ++k) v.e[k] = static_cast<float>(threadIdx.x + k);
#pragma unroll 1
  for (int i = 0; i < kReps; ++i)
    tt::store_vec<WIDTH / 4>(reinterpret_cast<float*>(buffer + a + (i % 4) * kStep), v);
  __syncthreads();
  float sum = 0;
#pragma unroll 1
  for (int i = 0; i < kReps; ++i) {
    const V w =
        tt::load_vec<WIDTH / 4>(reinterpret_cast<const float*>(buffer + a + (i % 4) * kStep));
    for (int k = 0; k < WIDTH / 4; ++k) sum += w.e[k];
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

/// The analyser's prediction for one warp instruction of @p p.
tt::SharedCost predict(const Pattern& p) {
  tt::WarpAddresses a{};
  for (int l = 0; l < 32; ++l) a[static_cast<std::size_t>(l)] = p.address(l);
  return tt::shared_cost(a, p.width);
}

int run(int argc, char** argv) {
  std::string pattern, format = "text";
  bool list = false;
  int device = 0;
  CLI::App app{"banks: shared-memory access patterns against the access analyser's bank model"};
  std::vector<std::string> names;
  for (const auto& p : patterns()) names.push_back(p.name);
  app.add_option("-p,--pattern", pattern, "Run this pattern")->check(CLI::IsMember(names));
  app.add_flag("--list", list, "Print the patterns and the analyser's predictions (no GPU)");
  app.add_option("-f,--format", format, "With --list: text or json")
      ->check(CLI::IsMember({"text", "json"}));
  app.add_option("-d,--device", device, "CUDA device index")->check(tt::whole_number(0, 1023));
  app.footer("Exit status: 0 ok, 2 bad command line, 3 no CUDA device, 4 CUDA error.");
  if (!tt::parse_app(app, argc, argv, std::cout)) return tt::kExitOk;
  if (list == !pattern.empty())
    throw tt::UsageError("give either --list or --pattern NAME (--list shows the names)");
  if (format != "text" && !list) throw tt::UsageError("--format applies to --list");

  if (list) {
    const std::uint64_t instructions =
        static_cast<std::uint64_t>(kBlocks) * (kThreads / 32) * kReps;  // of each direction
    for (const auto& p : patterns()) {
      const tt::SharedCost c = predict(p);
      if (format == "json") {
        std::cout << "{\"pattern\":\"" << p.name << "\",\"what\":\"" << tt::json_escape(p.what)
                  << "\",\"width\":" << p.width << ",\"instructions\":" << instructions
                  << ",\"wavefronts\":" << c.wavefronts << ",\"ideal\":" << c.ideal
                  << ",\"phases\":" << c.phases << "}\n";
      } else {
        std::cout << std::left << std::setw(26) << p.name << std::right << std::setw(3) << p.width
                  << " B  " << std::setw(2) << c.wavefronts << " wavefront(s), ideal " << c.ideal
                  << "  " << p.what << "\n";
      }
    }
    return tt::kExitOk;
  }

  const tt::DeviceInfo dev = tt::select_device(device);
  (void)dev;
  std::size_t index = 0;
  while (patterns()[index].name != pattern) ++index;
  const Pattern& p = patterns()[index];
  tt::DeviceBuffer<float> out(static_cast<std::size_t>(kBlocks) * kThreads);
  const int i = static_cast<int>(index);
  if (p.width == 4) bank_kernel<4><<<kBlocks, kThreads>>>(i, out.get());
  if (p.width == 8) bank_kernel<8><<<kBlocks, kThreads>>>(i, out.get());
  if (p.width == 16) bank_kernel<16><<<kBlocks, kThreads>>>(i, out.get());
  TT_CHECK_LAUNCH();
  TT_CUDA_CHECK(cudaDeviceSynchronize());
  std::cout << p.name << ": " << kBlocks << " blocks of " << kThreads << " threads, " << kReps
            << " stores and " << kReps << " loads a warp, done\n";
  return tt::kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  return tt::guarded("banks", [&] { return run(argc, argv); });
}
