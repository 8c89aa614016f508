// Shared-memory access patterns, one warp instruction at a time, for settling the access
// analyser's bank model against Nsight Compute (scripts/bank_patterns.py). Each pattern is the
// byte address every lane of a warp touches with one 4-, 8- or 16-byte access. Every warp of
// the launch stores to its pattern's addresses kReps times, then loads from them kReps times,
// and nothing else touches shared memory, so the wavefronts per instruction that Nsight
// Compute counts belong to the pattern alone. The analyser (common/analyser.hpp) predicts them
// from the same addresses, for the stores and for the loads.
//
// Race-free by construction (compute-sanitizer's racecheck runs it): each warp has shared
// memory of its own, and the value stored at an address depends on the address alone, so the
// lanes that share an address (the broadcast patterns) store the same bytes.
//
// With --global load|store each warp also moves 128 coalesced bytes to or from global memory
// on every pass of its shared loads: the same shared instructions with the L1's data path
// busy with global traffic, which is how the counters of a transpose see them.
//
// Run:   banks --list                       # the patterns and the analyser's predictions
//        banks --list --format json         # the same, one JSON object a pattern
//        banks --pattern w16-2way-quarter   # run one (under ncu, see scripts/bank_patterns.py)
//        banks --pattern w4-ideal,w8-ideal  # run several, one launch each, in this order
//        banks --pattern w4-ideal --warps 32 --global load

#include <cuda_runtime.h>

#include <algorithm>
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

constexpr int kReps = 256;  ///< Stores, then loads, each warp makes at its addresses.
/// Warps of the launch: 32 for each of the 132 SMs of an H100 or H200, whatever the block.
constexpr int kWarps = 132 * 32;
/// The largest pattern spans 7424 bytes (the swizzle gathers); each warp's region is rounded
/// up to a multiple of 128 bytes, so that every region starts in bank 0.
constexpr int kRegionAlign = 128;

/// What else each warp does while it loads its pattern (--global).
enum class Global { none = 0, load = 1, store = 2 };

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
/// Lanes l and l ^ 2 the same address (0, 1, 0, 1, 2, 3, 2, 3, ... in 8-byte slots).
TT_HD int a_w8_pairs_xor2(int l) {
  return 8 * ((l & 1) | ((l >> 2) << 1));
}
TT_HD int a_w16_ideal(int l) {
  return 16 * l;
}
TT_HD int a_w16_broadcast_in_quarter(int l) {
  return 16 * (l / 2);
}
TT_HD int a_w16_pairs_xor2(int l) {
  return 16 * ((l & 1) | ((l >> 2) << 1));
}
TT_HD int a_w16_broadcast(int) {
  return 0;
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
      {"w8-pairs-xor2", "8 bytes, lanes l and l^2 the same address", 8, a_w8_pairs_xor2},
      {"w16-ideal", "16 bytes, consecutive", 16, a_w16_ideal},
      {"w16-broadcast-in-quarter", "16 bytes, pairs of lanes the same address", 16,
       a_w16_broadcast_in_quarter},
      {"w16-pairs-xor2", "16 bytes, lanes l and l^2 the same address", 16, a_w16_pairs_xor2},
      {"w16-broadcast", "16 bytes, every lane the same address", 16, a_w16_broadcast},
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

/// Each warp stores its pattern kReps times, then loads it kReps times, in a region of its own
/// that alternates between two copies (so no load is the same as the one before and none can
/// be hoisted out of the loop). One global store a thread at the end keeps the loads; with
/// @p global, every pass of the load loop also loads or stores 4 coalesced bytes a lane.
template <int WIDTH>
__global__ void bank_kernel(int pattern, int region, Global global, float* stream, float* out) {
  using V = tt::Vec<float, WIDTH / 4>;
  extern __shared__ __align__(16) unsigned char buffer[];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const long long gwarp = static_cast<long long>(blockIdx.x) * (blockDim.x / 32) + warp;
  unsigned char* mine = buffer + 2 * region * warp;
  int a = 0;
  switch (pattern) {  // device code cannot call through a host function pointer
    // clang-format off
    case 0: a = a_w4_ideal(lane); break;
    case 1: a = a_w4_broadcast(lane); break;
    case 2: a = a_w4_pairs(lane); break;
    case 3: a = a_w4_2way(lane); break;
    case 4: a = a_w4_32way(lane); break;
    case 5: a = a_w8_ideal(lane); break;
    case 6: a = a_w8_broadcast_in_phase(lane); break;
    case 7: a = a_w8_broadcast_across(lane); break;
    case 8: a = a_w8_2way(lane); break;
    case 9: a = a_w8_pairs_xor2(lane); break;
    case 10: a = a_w16_ideal(lane); break;
    case 11: a = a_w16_broadcast_in_quarter(lane); break;
    case 12: a = a_w16_pairs_xor2(lane); break;
    case 13: a = a_w16_broadcast(lane); break;
    case 14: a = a_w16_broadcast_across(lane); break;
    case 15: a = a_w16_2way_quarter(lane); break;
    case 16: a = a_w16_128_stride(lane); break;
    case 17: a = a_swizzle_group4(lane); break;
    case 18: a = a_swizzle_group1(lane); break;
    default: break;
      // clang-format on
  }
  V v;  // a function of the address only: lanes that share an address store the same bytes
  for (int k = 0; k < WIDTH / 4; ++k) v.e[k] = static_cast<float>(a + 4 * k);
#pragma unroll 1
  for (int i = 0; i < kReps; ++i)
    tt::store_vec<WIDTH / 4>(reinterpret_cast<float*>(mine + a + (i % 2) * region), v);
  __syncwarp();
  float sum = 0;
  float* lane_stream = stream + gwarp * kReps * 32 + lane;
#pragma unroll 1
  for (int i = 0; i < kReps; ++i) {
    const V w =
        tt::load_vec<WIDTH / 4>(reinterpret_cast<const float*>(mine + a + (i % 2) * region));
    for (int k = 0; k < WIDTH / 4; ++k) sum += w.e[k];
    if (global == Global::load) sum += lane_stream[i * 32];
    if (global == Global::store) lane_stream[i * 32] = sum;
  }
  out[gwarp * 32 + lane] = sum;
}

/// The analyser's prediction for one warp instruction of @p p, a store or a load.
tt::SharedCost predict(const Pattern& p, tt::Op op) {
  tt::WarpAddresses a{};
  for (int l = 0; l < 32; ++l) a[static_cast<std::size_t>(l)] = p.address(l);
  return tt::shared_cost(a, p.width, op);
}

/// Bytes of one warp's region for @p p: past its highest byte, rounded up to kRegionAlign.
int region_bytes(const Pattern& p) {
  int top = 0;
  for (int l = 0; l < 32; ++l) top = std::max(top, p.address(l) + p.width);
  return (top + kRegionAlign - 1) / kRegionAlign * kRegionAlign;
}

template <int WIDTH>
void launch(int index, const Pattern& p, int warps, Global global, float* stream, float* out) {
  const int region = region_bytes(p);
  const int shared = 2 * region * warps;
  int limit = 0;  // the most shared memory a block can ask for on this device
  TT_CUDA_CHECK(cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
  if (shared > limit)
    throw tt::UsageError(std::string(p.name) + " with " + std::to_string(warps) +
                         " warps a block needs " + std::to_string(shared) +
                         " bytes of shared memory (two copies of " + std::to_string(region) +
                         " bytes a warp); this device gives a block at most " +
                         std::to_string(limit) + ": ask for fewer --warps");
  TT_CUDA_CHECK(cudaFuncSetAttribute(bank_kernel<WIDTH>,
                                     cudaFuncAttributeMaxDynamicSharedMemorySize, shared));
  bank_kernel<WIDTH><<<kWarps / warps, 32 * warps, shared>>>(index, region, global, stream, out);
}

int run(int argc, char** argv) {
  std::vector<std::string> chosen;
  std::string format = "text", global = "none";
  bool list = false;
  int device = 0, warps = 8;
  CLI::App app{"banks: shared-memory access patterns against the access analyser's bank model"};
  std::vector<std::string> names;
  for (const auto& p : patterns()) names.push_back(p.name);
  app.add_option("-p,--pattern", chosen, "Run this pattern (several: a,b, one launch each)")
      ->delimiter(',')
      ->check(CLI::IsMember(names));
  app.add_option("-w,--warps", warps,
                 "Warps a block (the launch has " + std::to_string(kWarps) + " warps in all)")
      ->check(CLI::IsMember({1, 2, 4, 8, 16, 32}));
  app.add_option("-g,--global", global,
                 "Global traffic beside the shared loads: none, load or store")
      ->check(CLI::IsMember({"none", "load", "store"}));
  app.add_flag("--list", list, "Print the patterns and the analyser's predictions (no GPU)");
  app.add_option("-f,--format", format, "With --list: text or json")
      ->check(CLI::IsMember({"text", "json"}));
  app.add_option("-d,--device", device, "CUDA device index")->check(tt::whole_number(0, 1023));
  app.footer("Exit status: 0 ok, 2 bad command line, 3 no CUDA device, 4 CUDA error.");
  if (!tt::parse_app(app, argc, argv, std::cout)) return tt::kExitOk;
  if (list == !chosen.empty())
    throw tt::UsageError("give either --list or --pattern NAME (--list shows the names)");
  if (format != "text" && !list) throw tt::UsageError("--format applies to --list");

  if (list) {
    const std::uint64_t instructions = static_cast<std::uint64_t>(kWarps) * kReps;  // each way
    for (const auto& p : patterns()) {
      const tt::SharedCost st = predict(p, tt::Op::store), ld = predict(p, tt::Op::load);
      if (format == "json") {
        std::cout << "{\"pattern\":\"" << p.name << "\",\"what\":\"" << tt::json_escape(p.what)
                  << "\",\"width\":" << p.width << ",\"instructions\":" << instructions
                  << ",\"store\":" << st.wavefronts << ",\"load\":" << ld.wavefronts
                  << ",\"ideal\":" << st.ideal << ",\"phases\":" << st.phases << "}\n";
      } else {
        std::cout << std::left << std::setw(26) << p.name << std::right << std::setw(3) << p.width
                  << " B  store " << std::setw(2) << st.wavefronts << ", load " << std::setw(2)
                  << ld.wavefronts << " wavefront(s), ideal " << st.ideal << "  " << p.what << "\n";
      }
    }
    return tt::kExitOk;
  }

  const tt::DeviceInfo dev = tt::select_device(device);
  (void)dev;
  const Global g = global == "load"    ? Global::load
                   : global == "store" ? Global::store
                                       : Global::none;
  tt::DeviceBuffer<float> out(static_cast<std::size_t>(kWarps) * 32);
  tt::DeviceBuffer<float> stream(g == Global::none ? 1
                                                   : static_cast<std::size_t>(kWarps) * kReps * 32);
  if (g == Global::load) TT_CUDA_CHECK(cudaMemset(stream.get(), 0, stream.bytes()));
  for (const std::string& name : chosen) {  // one launch a pattern, in the order given
    std::size_t index = 0;
    while (patterns()[index].name != name) ++index;
    const Pattern& p = patterns()[index];
    const int i = static_cast<int>(index);
    if (p.width == 4) launch<4>(i, p, warps, g, stream.get(), out.get());
    if (p.width == 8) launch<8>(i, p, warps, g, stream.get(), out.get());
    if (p.width == 16) launch<16>(i, p, warps, g, stream.get(), out.get());
    TT_CHECK_LAUNCH();
    TT_CUDA_CHECK(cudaDeviceSynchronize());
    std::cout << p.name << ": " << kWarps / warps << " blocks of " << warps << " warps, "
              << kReps << " stores and " << kReps << " loads a warp, global traffic: " << global
              << ", done\n";
  }
  return tt::kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  return tt::guarded("banks", [&] { return run(argc, argv); });
}
