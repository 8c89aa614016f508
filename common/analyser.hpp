/// @file analyser.hpp
/// @brief The access analyser: predicts shared-memory wavefronts and global-memory sectors
/// of one warp-wide memory instruction from the 32 addresses its lanes touch, and sums the
/// prediction over a whole launch so it can be compared with Nsight Compute.
///
/// The model (checked against Nsight Compute on an H100, see docs/):
/// - Shared memory has 32 banks of 4 bytes; word w lives in bank w mod 32. A warp's access is
///   served in phases: all 32 lanes for 4-byte accesses, each half-warp for 8-byte accesses,
///   each quarter-warp for 16-byte accesses (128 bytes a phase). A phase needs as many
///   wavefronts as the largest number of distinct words any one bank must deliver; lanes
///   reading the same word share it (broadcast). The ideal is one wavefront per phase.
///   A load of 8 or 16 bytes whose lanes pair up on one address (l and l ^ 1, or l and l ^ 2)
///   is served in phases of twice the lanes; stores never are (phase_lanes()).
/// - Global memory moves 32-byte sectors; a 128-byte line holds 4 of them. A warp's request
///   costs one sector for every distinct 32-byte sector its active lanes touch. The ideal is
///   the bytes requested divided by 32, rounded up.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "step.hpp"

namespace tt {

/// The addresses (bytes) of the 32 lanes of one warp; nothing for an inactive lane.
using WarpAddresses = std::array<std::optional<std::int64_t>, 32>;

/// Number of shared-memory banks.
constexpr int kBanks = 32;
/// Bytes per shared-memory bank: word w (bytes 4 w to 4 w + 3) is in bank w mod kBanks.
constexpr int kBankBytes = 4;
/// Bytes in a global-memory sector, the unit that moves between L1, L2 and DRAM.
constexpr int kSectorBytes = 32;
/// Bytes in a cache line (4 sectors).
constexpr int kLineBytes = 128;

/// Cost of one shared-memory instruction of one warp.
struct SharedCost {
  int wavefronts = 0;  ///< Predicted wavefronts.
  int ideal = 0;       ///< One per phase that has an active lane.
  int phases = 0;      ///< Lanes are served 32, 16 or 8 at a time for 4-, 8-, 16-byte widths.
};

/// Cost of one global-memory instruction of one warp.
struct GlobalCost {
  int sectors = 0;          ///< Distinct 32-byte sectors touched.
  int ideal_sectors = 0;    ///< ceil(distinct bytes / 32).
  int lines = 0;            ///< Distinct 128-byte lines touched.
  int partial_sectors = 0;  ///< Sectors the instruction touches only in part (not all 32 bytes).
};

/// Lanes served together for an access of @p width bytes (32, 16 or 8).
int lanes_per_phase(int width);

/// Lanes a shared-memory instruction serves together: lanes_per_phase(), or twice that for a
/// load of 8 or 16 bytes whose lanes all pair up on one address (lanes l and l ^ 1, or l and
/// l ^ 2): such a load returns each pair's data once (measured by course/banks.cu).
int phase_lanes(const WarpAddresses& a, int width, Op op);

/// Shared-memory cost of one warp instruction, a load or a store. @p width is 4, 8 or 16.
SharedCost shared_cost(const WarpAddresses& a, int width, Op op);

/// Global-memory cost of one warp instruction. @p width is 1 to 16 bytes.
GlobalCost global_cost(const WarpAddresses& a, int width);

/// Addresses of warp @p warp of block @p block for @p access at @p iteration, using the
/// plan's block shape to turn a lane into threadIdx (x fastest, as the hardware does).
WarpAddresses warp_addresses(const Access& access, const LaunchPlan& plan, uint3 block, int warp,
                             int iteration);

/// One access summed over a launch: what Nsight Compute's counters should show.
///
/// The analyser visits every block of the launch, or an even sample of them on large grids
/// (blocks inside the matrix all behave alike; the sample keeps edge blocks in proportion).
/// When it samples, the counts below are the sample's, scaled to the whole launch: an
/// estimate, exact only for the per-instruction averages of grids whose blocks behave alike.
struct AccessTotals {
  std::uint64_t instructions = 0;  ///< Warp-level executions (warps with an active lane).
  std::uint64_t cost = 0;          ///< Wavefronts (shared) or sectors (global).
  std::uint64_t ideal = 0;         ///< The ideal for the same instructions.
  std::uint64_t lanes = 0;         ///< Active lanes, summed over those instructions.
  std::uint64_t partial = 0;       ///< Global: sectors an instruction touches only in part.
  /// Global: the 128-byte lines each instruction touches, summed: the requests the SM sends
  /// the L2 (one for each line a warp instruction touches).
  std::uint64_t lines = 0;
  /// Global loads: the requests each block's SM sends the L2 when its L1 serves what the same
  /// block read before: an instruction's line counts where it holds a sector that no earlier
  /// instruction of the block touched (the block's warps taken iteration by iteration, each
  /// iteration's warps in order), summed over the blocks.
  std::uint64_t block_requests = 0;
  /// Global: the distinct sectors each block touches, summed over the blocks. For loads, the
  /// sectors the block's SM asks of the L2 when its L1 serves every second touch of a sector
  /// by the same block (two warps reading the two halves of one sector, say) and nothing is
  /// shared between blocks: a sector two blocks read counts twice. (Stores pass the L1 to the
  /// L2 request by request: for them the L2's count is cost.)
  std::uint64_t block_sectors = 0;
  std::uint64_t blocks = 0;   ///< Blocks of the launch.
  std::uint64_t visited = 0;  ///< Blocks visited (== blocks unless sampled).
  /// Instructions and cost of each iteration (one SASS instruction each, in an unrolled loop):
  /// per_iteration[i] = {instructions, cost, ideal} of iteration i.
  std::vector<std::array<std::uint64_t, 3>> per_iteration;
  /// Whether only a sample of the blocks was visited (the counts are then scaled estimates).
  bool sampled() const { return visited < blocks; }
  /// Cost per instruction (wavefronts / instruction, or sectors / request).
  double per_instruction() const { return instructions ? double(cost) / instructions : 0.0; }
  /// Ideal per instruction.
  double ideal_per_instruction() const { return instructions ? double(ideal) / instructions : 0.0; }
  /// Active lanes per instruction (32 for a full warp).
  double lanes_per_instruction() const { return instructions ? double(lanes) / instructions : 0.0; }
};

/// Blocks the analyser visits by default before it samples instead.
constexpr std::uint64_t kDefaultSampleBlocks = 1u << 14;

/// Sums @p access over every warp and iteration of the launch, or over an even sample of
/// @p max_blocks blocks on larger grids (0: every block), on all cores.
AccessTotals analyse_access(const Access& access, const LaunchPlan& plan,
                            std::uint64_t max_blocks = kDefaultSampleBlocks);

/// A 32-column picture of which bank each lane hits, one row per wavefront.
std::string bank_picture(const WarpAddresses& a, int width, Op op);

/// One shared-memory instruction of one warp, to be drawn by bank_svg().
struct BankFigure {
  std::string title;        ///< A caption, e.g. the source expression.
  WarpAddresses addresses;  ///< The lanes' byte addresses in shared memory.
  int width = 4;            ///< Bytes per lane (4, 8 or 16).
  Op op = Op::load;         ///< A load or a store (phase_lanes()).
};

/// The bank pictures of @p figures, stacked, as one standalone SVG document: for each
/// instruction a row of 32 banks per wavefront, each cell naming (and coloured by) the lowest
/// lane that the bank serves in that wavefront.
std::string bank_svg(const std::vector<BankFigure>& figures);

/// What becomes of the sectors that the warps of one block touch only in part: the rest of
/// such a sector is touched by the same block (another warp, or another pass), by other
/// blocks, or by nobody (a sector at the edge of the matrix). For a store, a sector completed
/// by another block is written in two parts that reach the L2 cache at different times.
struct PartialCompletion {
  uint3 block{0, 0, 0};            ///< The block looked at.
  std::uint64_t sectors = 0;       ///< Sectors some warp instruction of it touches in part.
  std::uint64_t same_block = 0;    ///< Of those, completed by the block itself.
  std::uint64_t other_blocks = 0;  ///< Completed only with other blocks' bytes.
  std::uint64_t never = 0;         ///< Never completed (the matrix ends inside the sector).
  bool searched = true;            ///< Whether the other blocks were searched at all.
};

/// The block in the middle of the plan's grid: away from the edges, so that its neighbours
/// are ordinary blocks.
uint3 middle_block(const LaunchPlan& plan);

/// How the partly touched sectors of @p block (for the global @p access) are completed: the
/// block's own warps and passes first, then every other block of the launch, a full pass over
/// the grid on all cores. That pass is made only when the grid has at most @p budget warp
/// instructions of the access, or @p budget is 0 (any size); otherwise `searched` is false and
/// the sectors the block does not complete itself are counted in neither of the last two.
PartialCompletion partial_completion(const Access& access, const LaunchPlan& plan, uint3 block,
                                     std::uint64_t budget = 1u << 22);

/// Lanes as a short list: runs of consecutive lanes as ranges, "0-7, 16-23" or "0, 16".
std::string lane_list(const std::vector<int>& lanes);

/// A picture of the sectors and lines that one warp's global access touches.
std::string sector_picture(const WarpAddresses& a, int width);

/// Short names: "global load", "shared store", ...
std::string kind_name(const Access& a);

/// The unit the cost is counted in: "sectors/request" or "wavefronts/instr".
std::string unit_name(const Access& a);

}  // namespace tt
