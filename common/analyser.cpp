#include "analyser.hpp"

#include <algorithm>
#include <climits>
#include <iomanip>
#include <map>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <unordered_map>
#include <unordered_set>

namespace tt {

int lanes_per_phase(int width) {
  switch (width) {
    case 1:
    case 2:
    case 4:
      return 32;
    case 8:
      return 16;
    case 16:
      return 8;
    default:
      throw std::invalid_argument("shared-memory access width must be 1, 2, 4, 8 or 16 bytes");
  }
}

namespace {

/// The 4-byte words a lane's access covers.
void words_of(std::int64_t address, int width, std::vector<std::int64_t>& out) {
  const std::int64_t first = address / kBankBytes;
  const std::int64_t last = (address + width - 1) / kBankBytes;
  for (std::int64_t w = first; w <= last; ++w) out.push_back(w);
}

/// For one phase (lanes [l0, l1)): bank -> distinct words, in lane order.
std::array<std::vector<std::int64_t>, kBanks> bank_words(const WarpAddresses& a, int width, int l0,
                                                         int l1) {
  std::array<std::vector<std::int64_t>, kBanks> banks;
  std::vector<std::int64_t> words;
  for (int lane = l0; lane < l1; ++lane) {
    if (!a[lane]) continue;
    words.clear();
    words_of(*a[lane], width, words);
    for (auto w : words) {
      auto& b = banks[static_cast<std::size_t>(((w % kBanks) + kBanks) % kBanks)];
      if (std::find(b.begin(), b.end(), w) == b.end()) b.push_back(w);
    }
  }
  return banks;
}

/// The lowest lane of [l0, l1) whose access covers 4-byte word @p word, or -1.
int first_lane(const WarpAddresses& a, int width, int l0, int l1, std::int64_t word) {
  for (int lane = l0; lane < l1; ++lane) {
    if (!a[lane]) continue;
    if (word >= *a[lane] / kBankBytes && word <= (*a[lane] + width - 1) / kBankBytes) return lane;
  }
  return -1;
}

}  // namespace

std::string lane_list(const std::vector<int>& lanes) {
  std::ostringstream os;
  for (std::size_t i = 0; i < lanes.size();) {
    std::size_t j = i;
    while (j + 1 < lanes.size() && lanes[j + 1] == lanes[j] + 1) ++j;
    os << (i ? ", " : "") << lanes[i];
    if (j > i) os << "-" << lanes[j];
    i = j + 1;
  }
  return os.str();
}

namespace {

/// Escapes the characters XML gives a meaning to.
std::string xml_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '<')
      o += "&lt;";
    else if (c == '>')
      o += "&gt;";
    else if (c == '&')
      o += "&amp;";
    else if (c == '"')
      o += "&quot;";
    else
      o += c;
  }
  return o;
}
}  // namespace

namespace {
/// Whether every lane l reads what lane l ^ @p k reads (both inactive, or the same address).
bool pairs_share(const WarpAddresses& a, int k) {
  for (int l = 0; l < 32; ++l)
    if (a[l] != a[l ^ k]) return false;
  return true;
}
}  // namespace

int phase_lanes(const WarpAddresses& a, int width, Op op) {
  // A load of 8 or 16 bytes whose lanes pair up on one address (l and l ^ 1, or l and l ^ 2,
  // all of them) returns each pair's data once: its phases hold twice the lanes. A store has
  // no such merge (course/banks.cu measures both, docs/theory-banks.md).
  const int lanes = lanes_per_phase(width);
  if (op == Op::load && width > kBankBytes && (pairs_share(a, 1) || pairs_share(a, 2)))
    return 2 * lanes;
  return lanes;
}

SharedCost shared_cost(const WarpAddresses& a, int width, Op op) {
  const int per_phase = phase_lanes(a, width, op);
  SharedCost c;
  c.phases = 32 / per_phase;
  for (int l0 = 0; l0 < 32; l0 += per_phase) {
    // Distinct words of the phase (fixed arrays: this runs for every warp of a launch).
    std::int64_t words[32 * 4 + 8];
    int n = 0;
    for (int lane = l0; lane < l0 + per_phase; ++lane) {
      if (!a[lane]) continue;
      for (std::int64_t w = *a[lane] / kBankBytes; w <= (*a[lane] + width - 1) / kBankBytes; ++w)
        words[n++] = w;
    }
    if (n == 0) continue;
    std::sort(words, words + n);
    n = static_cast<int>(std::unique(words, words + n) - words);
    int per_bank[kBanks] = {};
    int worst = 0;
    for (int i = 0; i < n; ++i)
      worst = std::max(worst, ++per_bank[((words[i] % kBanks) + kBanks) % kBanks]);
    c.wavefronts += worst;
    c.ideal += 1;
  }
  return c;
}

namespace {

/// (sector, mask of its 32 bytes) for every sector that one instruction touches, merged.
int sector_masks(const WarpAddresses& a, int width, std::pair<std::int64_t, std::uint32_t>* out) {
  int n = 0;
  for (const auto& addr : a) {
    if (!addr) continue;
    const std::int64_t lo = *addr, hi = *addr + width;
    for (std::int64_t s = lo / kSectorBytes; s <= (hi - 1) / kSectorBytes && n < 64; ++s) {
      const std::int64_t from = std::max(lo, s * kSectorBytes) - s * kSectorBytes;
      const std::int64_t to = std::min(hi, (s + 1) * kSectorBytes) - s * kSectorBytes;
      const std::uint32_t bits = to - from == 32 ? 0xFFFFFFFFu : ((1u << (to - from)) - 1u) << from;
      out[n++] = {s, bits};
    }
  }
  std::sort(out, out + n, [](const auto& x, const auto& y) { return x.first < y.first; });
  int m = 0;
  for (int i = 0; i < n; ++i) {
    if (m > 0 && out[m - 1].first == out[i].first)
      out[m - 1].second |= out[i].second;
    else
      out[m++] = out[i];
  }
  return m;
}

constexpr std::uint32_t kWholeSector = 0xFFFFFFFFu;

}  // namespace

GlobalCost global_cost(const WarpAddresses& a, int width) {
  // Small sorted vectors instead of sets: this runs for every warp of a launch.
  std::int64_t starts[32];
  int n = 0;
  for (const auto& addr : a)
    if (addr) starts[n++] = *addr;
  std::sort(starts, starts + n);
  std::int64_t lines[64];
  int nl = 0;
  std::int64_t bytes = 0, covered_to = INT64_MIN;  // union of [start, start + width)
  for (int i = 0; i < n; ++i) {
    const std::int64_t lo = starts[i], hi = starts[i] + width;
    bytes += std::max<std::int64_t>(0, hi - std::max(lo, covered_to));
    covered_to = std::max(covered_to, hi);
    for (std::int64_t l = lo / kLineBytes; l <= (hi - 1) / kLineBytes && nl < 64; ++l)
      lines[nl++] = l;
  }
  std::sort(lines, lines + nl);
  std::pair<std::int64_t, std::uint32_t> masks[64];
  const int ns = sector_masks(a, width, masks);
  GlobalCost c;
  c.sectors = ns;
  c.lines = static_cast<int>(std::unique(lines, lines + nl) - lines);
  c.ideal_sectors = static_cast<int>(ceil_div(bytes, kSectorBytes));
  for (int i = 0; i < ns; ++i) c.partial_sectors += masks[i].second != kWholeSector;
  return c;
}

WarpAddresses warp_addresses(const Access& access, const LaunchPlan& plan, uint3 block, int warp,
                             int iteration) {
  WarpAddresses out{};
  const unsigned bx = plan.block.x, by = plan.block.y;
  const unsigned threads = bx * by * plan.block.z;
  for (int lane = 0; lane < 32; ++lane) {
    const unsigned t = static_cast<unsigned>(warp) * 32u + static_cast<unsigned>(lane);
    if (t >= threads) continue;  // a partial last warp
    const uint3 thread{t % bx, (t / bx) % by, t / (bx * by)};
    out[static_cast<std::size_t>(lane)] = access.address(ThreadPos{block, thread, iteration});
  }
  return out;
}

AccessTotals analyse_access(const Access& access, const LaunchPlan& plan,
                            std::uint64_t max_blocks) {
  const std::uint64_t gx = plan.grid.x, gy = plan.grid.y, gz = plan.grid.z;
  const std::uint64_t blocks = gx * gy * gz;
  // Visit every block, or max_blocks of them spread over the grid: i -> i * step mod blocks
  // with step coprime to blocks is a permutation, so the sample hits edge tiles in proportion.
  const bool sample = max_blocks != 0 && blocks > max_blocks;
  const std::uint64_t visits = sample ? max_blocks : blocks;
  std::uint64_t step = 1;
  if (sample) {
    step = 2654435761ull % blocks;
    while (std::gcd(step, blocks) != 1) ++step;
  }
  const int warps = static_cast<int>(ceil_div(plan.block.x * plan.block.y * plan.block.z, 32));

  // Each worker sums a contiguous range of visits; the sums are added at the end.
  const unsigned workers = static_cast<unsigned>(std::max<std::uint64_t>(
      1, std::min<std::uint64_t>(host_threads(), visits / 64)));
  std::vector<AccessTotals> part(workers);
  for (auto& p : part) p.per_iteration.assign(static_cast<std::size_t>(access.iterations), {});
  const bool global = access.space == Space::global;
  const auto work = [&](unsigned w) {
    AccessTotals& t = part[w];
    // The sectors one block has touched so far: the block's distinct sectors at its end
    // (block_sectors), and, for loads, which sectors of an instruction are new to the block
    // (block_requests). Iterations outside, warps inside: every warp's pass p before pass p + 1.
    std::unordered_set<std::int64_t> seen;
    for (std::uint64_t i = visits * w / workers; i < visits * (w + 1) / workers; ++i) {
      const std::uint64_t b = sample ? (i * step) % blocks : i;
      const uint3 block{static_cast<unsigned>(b % gx), static_cast<unsigned>((b / gx) % gy),
                        static_cast<unsigned>(b / (gx * gy))};
      seen.clear();
      for (int it = 0; it < access.iterations; ++it) {
        for (int wp = 0; wp < warps; ++wp) {
          const auto a = warp_addresses(access, plan, block, wp, it);
          const auto active =
              std::count_if(a.begin(), a.end(), [](const auto& x) { return x.has_value(); });
          if (active == 0) continue;  // no active lane: the warp skips the instruction
          std::uint64_t cost = 0, ideal = 0;
          if (access.space == Space::shared) {
            const auto c = shared_cost(a, access.width, access.op);
            cost = static_cast<std::uint64_t>(c.wavefronts);
            ideal = static_cast<std::uint64_t>(c.ideal);
          } else {
            const auto c = global_cost(a, access.width);
            cost = static_cast<std::uint64_t>(c.sectors);
            ideal = static_cast<std::uint64_t>(c.ideal_sectors);
            t.partial += static_cast<std::uint64_t>(c.partial_sectors);
            t.lines += static_cast<std::uint64_t>(c.lines);
            std::int64_t new_lines[64];  // the lines of this instruction's new sectors
            int nl = 0;
            for (const auto& addr : a)
              if (addr)
                for (std::int64_t sec = *addr / kSectorBytes;
                     sec <= (*addr + access.width - 1) / kSectorBytes; ++sec)
                  if (seen.insert(sec).second) new_lines[nl++] = sec / (kLineBytes / kSectorBytes);
            if (access.op == Op::load) {  // an L2 request for each line with a new sector
              std::sort(new_lines, new_lines + nl);
              t.block_requests +=
                  static_cast<std::uint64_t>(std::unique(new_lines, new_lines + nl) - new_lines);
            }
          }
          ++t.instructions;
          t.lanes += static_cast<std::uint64_t>(active);
          t.cost += cost;
          t.ideal += ideal;
          auto& it_totals = t.per_iteration[static_cast<std::size_t>(it)];
          ++it_totals[0];
          it_totals[1] += cost;
          it_totals[2] += ideal;
        }
      }
      if (global) t.block_sectors += static_cast<std::uint64_t>(seen.size());
    }
  };
  std::vector<std::thread> pool;
  for (unsigned w = 1; w < workers; ++w) pool.emplace_back(work, w);
  work(0);
  for (auto& th : pool) th.join();

  AccessTotals t;
  t.per_iteration.assign(static_cast<std::size_t>(access.iterations), {});
  for (const auto& p : part) {
    t.instructions += p.instructions;
    t.cost += p.cost;
    t.ideal += p.ideal;
    t.lanes += p.lanes;
    t.partial += p.partial;
    t.lines += p.lines;
    t.block_requests += p.block_requests;
    t.block_sectors += p.block_sectors;
    for (std::size_t i = 0; i < p.per_iteration.size(); ++i)
      for (std::size_t j = 0; j < 3; ++j) t.per_iteration[i][j] += p.per_iteration[i][j];
  }
  t.blocks = blocks;
  t.visited = visits;
  if (sample) {  // scale the sample's counts to the launch
    const auto scale = [&](std::uint64_t x) {
      return static_cast<std::uint64_t>(static_cast<long double>(x) * blocks / visits + 0.5L);
    };
    t.instructions = scale(t.instructions);
    t.cost = scale(t.cost);
    t.ideal = scale(t.ideal);
    t.lanes = scale(t.lanes);
    t.partial = scale(t.partial);
    t.lines = scale(t.lines);
    t.block_requests = scale(t.block_requests);
    t.block_sectors = scale(t.block_sectors);
    for (auto& it : t.per_iteration)
      for (auto& x : it) x = scale(x);
  }
  return t;
}

uint3 middle_block(const LaunchPlan& plan) {
  return {plan.grid.x / 2, plan.grid.y / 2, plan.grid.z / 2};
}

PartialCompletion partial_completion(const Access& access, const LaunchPlan& plan, uint3 block,
                                     std::uint64_t budget) {
  const int warps = static_cast<int>(ceil_div(plan.block.x * plan.block.y * plan.block.z, 32));
  std::pair<std::int64_t, std::uint32_t> masks[64];
  // The block's own bytes, sector by sector, and the sectors one of its instructions touches
  // in part.
  std::unordered_map<std::int64_t, std::uint32_t> own;
  std::unordered_set<std::int64_t> partial;
  for (int w = 0; w < warps; ++w)
    for (int it = 0; it < access.iterations; ++it) {
      const int n = sector_masks(warp_addresses(access, plan, block, w, it), access.width, masks);
      for (int i = 0; i < n; ++i) {
        own[masks[i].first] |= masks[i].second;
        if (masks[i].second != kWholeSector) partial.insert(masks[i].first);
      }
    }
  PartialCompletion c;
  c.block = block;
  c.sectors = partial.size();
  std::unordered_map<std::int64_t, std::uint32_t> rest;  // what the block leaves unwritten
  for (const auto s : partial) {
    if (own[s] == kWholeSector)
      ++c.same_block;
    else
      rest[s] = own[s];
  }
  const std::uint64_t gx = plan.grid.x, gy = plan.grid.y, gz = plan.grid.z;
  const std::uint64_t blocks = gx * gy * gz;
  const std::uint64_t work =
      blocks * static_cast<std::uint64_t>(warps) * static_cast<std::uint64_t>(access.iterations);
  if (rest.empty()) return c;
  if (budget != 0 && work > budget) {
    c.searched = false;
    return c;
  }
  // Every other block, for the bytes of those sectors: each worker ORs into its own copy.
  const unsigned workers = std::min(host_threads(), 64u);
  std::vector<std::unordered_map<std::int64_t, std::uint32_t>> found(workers, rest);
  const auto search = [&](unsigned k) {
    std::pair<std::int64_t, std::uint32_t> m[64];
    auto& mine = found[k];
    for (std::uint64_t b = blocks * k / workers; b < blocks * (k + 1) / workers; ++b) {
      const uint3 other{static_cast<unsigned>(b % gx), static_cast<unsigned>(b / gx % gy),
                        static_cast<unsigned>(b / (gx * gy))};
      if (other.x == block.x && other.y == block.y && other.z == block.z) continue;
      for (int w = 0; w < warps; ++w)
        for (int it = 0; it < access.iterations; ++it) {
          const int n = sector_masks(warp_addresses(access, plan, other, w, it), access.width, m);
          for (int i = 0; i < n; ++i) {
            const auto at = mine.find(m[i].first);
            if (at != mine.end()) at->second |= m[i].second;
          }
        }
    }
  };
  std::vector<std::thread> pool;
  for (unsigned k = 1; k < workers; ++k) pool.emplace_back(search, k);
  search(0);
  for (auto& t : pool) t.join();
  for (const auto& [s, mask] : rest) {
    std::uint32_t all = mask;
    for (const auto& f : found) all |= f.at(s);
    (all == kWholeSector ? c.other_blocks : c.never) += 1;
  }
  return c;
}

std::string bank_picture(const WarpAddresses& a, int width, Op op) {
  const int per_phase = phase_lanes(a, width, op);
  std::ostringstream os;
  os << "        bank";
  for (int b = 0; b < kBanks; ++b) os << std::setw(3) << b;
  os << "\n";
  int wave = 0;
  for (int l0 = 0; l0 < 32; l0 += per_phase) {
    const auto banks = bank_words(a, width, l0, l0 + per_phase);
    std::size_t depth = 0;
    for (const auto& b : banks) depth = std::max(depth, b.size());
    for (std::size_t d = 0; d < depth; ++d) {
      os << "  wavefront" << std::setw(3) << ++wave;
      for (int bank = 0; bank < kBanks; ++bank) {
        const auto& words = banks[static_cast<std::size_t>(bank)];
        if (d >= words.size()) {
          os << "  .";
          continue;
        }
        // The lowest lane of this phase that reads this word (several lanes: broadcast).
        os << std::setw(3) << first_lane(a, width, l0, l0 + per_phase, words[d]);
      }
      os << "\n";
    }
  }
  os << "  (each cell: the lowest lane served by that bank in that wavefront; '.' idle)\n";
  return os.str();
}

std::string bank_svg(const std::vector<BankFigure>& figures) {
  constexpr int kCellW = 26, kCellH = 20, kLeft = 96, kTitle = 24, kGap = 22;
  std::ostringstream body;
  int y = 8;
  for (const auto& f : figures) {
    const int per_phase = phase_lanes(f.addresses, f.width, f.op);
    const SharedCost cost = shared_cost(f.addresses, f.width, f.op);
    body << "<text x=\"4\" y=\"" << y + 15 << "\" class=\"t\">" << xml_escape(f.title) << ": "
         << cost.wavefronts << " wavefront(s), ideal " << cost.ideal << "</text>\n";
    y += kTitle;
    body << "<text x=\"4\" y=\"" << y + 14 << "\" class=\"h\">bank</text>\n";
    for (int b = 0; b < kBanks; ++b)
      body << "<text x=\"" << kLeft + b * kCellW + kCellW / 2 << "\" y=\"" << y + 14
           << "\" class=\"h\" text-anchor=\"middle\">" << b << "</text>\n";
    y += kCellH;
    int wave = 0;
    for (int l0 = 0; l0 < 32; l0 += per_phase) {
      const auto banks = bank_words(f.addresses, f.width, l0, l0 + per_phase);
      std::size_t depth = 0;
      for (const auto& b : banks) depth = std::max(depth, b.size());
      for (std::size_t d = 0; d < depth; ++d) {
        body << "<text x=\"4\" y=\"" << y + 14 << "\" class=\"h\">wavefront " << ++wave
             << "</text>\n";
        for (int bank = 0; bank < kBanks; ++bank) {
          const auto& words = banks[static_cast<std::size_t>(bank)];
          const int x = kLeft + bank * kCellW;
          if (d >= words.size()) {
            body << "<rect x=\"" << x << "\" y=\"" << y << "\" width=\"" << kCellW - 2
                 << "\" height=\"" << kCellH - 2 << "\" class=\"idle\"/>\n";
            continue;
          }
          const int lane = first_lane(f.addresses, f.width, l0, l0 + per_phase, words[d]);
          body << "<rect x=\"" << x << "\" y=\"" << y << "\" width=\"" << kCellW - 2
               << "\" height=\"" << kCellH - 2 << "\" fill=\"hsl(" << lane * 360 / 32
               << ",70%,75%)\"/><text x=\"" << x + (kCellW - 2) / 2 << "\" y=\"" << y + 14
               << "\" class=\"l\" text-anchor=\"middle\">" << lane << "</text>\n";
        }
        y += kCellH;
      }
    }
    y += kGap;
  }
  std::ostringstream svg;
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kLeft + kBanks * kCellW + 8
      << "\" height=\"" << y << "\" font-family=\"monospace\">\n"
      << "<style>.t{font-size:13px;font-weight:bold}.h{font-size:11px;fill:#444}"
         ".l{font-size:11px}.idle{fill:#eeeeee}</style>\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      << body.str() << "</svg>\n";
  return svg.str();
}

std::string sector_picture(const WarpAddresses& a, int width) {
  // Map each sector (relative to the first line touched) to the lanes that touch it.
  std::map<std::int64_t, std::vector<int>> by_sector;
  std::int64_t base = -1;
  for (int lane = 0; lane < 32; ++lane) {
    if (!a[lane]) continue;
    const std::int64_t line = *a[lane] / kLineBytes * kLineBytes;
    if (base < 0 || line < base) base = line;
  }
  for (int lane = 0; lane < 32; ++lane) {
    if (!a[lane]) continue;
    for (std::int64_t s = *a[lane] / kSectorBytes; s <= (*a[lane] + width - 1) / kSectorBytes; ++s)
      by_sector[s].push_back(lane);
  }
  std::ostringstream os;
  if (by_sector.empty()) return "  (no active lane)\n";
  os << "  sector (byte offset from the first line touched) <- lanes\n";
  int shown = 0;
  for (const auto& [s, lanes] : by_sector) {
    if (++shown > 12) {
      os << "  ... " << by_sector.size() - 12 << " more sectors\n";
      break;
    }
    os << "  +" << std::setw(8) << s * kSectorBytes - base << " <- lane"
       << (lanes.size() > 1 ? "s " : " ") << lane_list(lanes) << "\n";
  }
  return os.str();
}

std::string kind_name(const Access& a) {
  return std::string(a.space == Space::global ? "global " : "shared ") +
         (a.op == Op::load ? "load" : "store");
}

std::string unit_name(const Access& a) {
  return a.space == Space::global ? "sectors/request" : "wavefronts/instr";
}

}  // namespace tt
