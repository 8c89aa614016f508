// Step 18's plan on the CPU (steps/18-all-to-all/plan.hpp): the split of the rows over the
// GPUs, and the whole exchange of both variants simulated on small matrices for 1 to 8 GPUs.
// Each simulation does what the GPUs do with the plan's numbers, and every output element must
// be written exactly once, in its place, with the CPU transpose's value.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "18-all-to-all/plan.hpp"
#include "catch.hpp"

namespace {

using step18::Plan;
using step18::Split;

/// Rows, columns: primes, fewer than the GPUs, one row or column, 1 x 1, whole tiles.
const std::vector<std::pair<std::int64_t, std::int64_t>> kShapes = {
    {1, 1},   {1, 9},  {9, 1},  {2, 3},   {3, 2},   {5, 7},   {7, 5},   {13, 17},
    {17, 13}, {4, 64}, {64, 4}, {31, 37}, {37, 31}, {64, 64}, {101, 3}, {3, 101}};

/// An element never written: the input's values are their indices, from 0 up.
constexpr std::int64_t kUnwritten = -1;

/// The input, M x N: element (r, c) holds r N + c.
std::vector<std::int64_t> input(const Plan& plan) {
  std::vector<std::int64_t> in(static_cast<std::size_t>(plan.rows() * plan.cols()));
  for (std::size_t k = 0; k < in.size(); ++k) in[k] = static_cast<std::int64_t>(k);
  return in;
}

/// One GPU's output (out.count(q) rows of M) as the whole CPU transpose has it.
std::vector<std::int64_t> expected(const Plan& plan, int q) {
  std::vector<std::int64_t> out;
  for (std::int64_t c = plan.out.first(q); c < plan.out.first(q + 1); ++c)
    for (std::int64_t r = 0; r < plan.rows(); ++r) out.push_back(r * plan.cols() + c);
  return out;
}

/// Writes @p value at @p at of @p to, counting the writes of each element in @p writes.
void write(std::vector<std::int64_t>& to, std::vector<int>& writes, std::int64_t at,
           std::int64_t value) {
  REQUIRE(at >= 0);
  REQUIRE(at < static_cast<std::int64_t>(to.size()));
  to[static_cast<std::size_t>(at)] = value;
  ++writes[static_cast<std::size_t>(at)];
}

/// Every element of GPU @p q's @p out written once, and what the CPU transpose holds there.
void require_exact(const Plan& plan, int q, const std::vector<std::int64_t>& out,
                   const std::vector<int>& writes) {
  for (std::size_t k = 0; k < writes.size(); ++k) {
    INFO("GPU " << q << ", output element " << k);
    REQUIRE(writes[k] == 1);
  }
  REQUIRE(out == expected(plan, q));
}

/// The nccl variant on the CPU: each GPU's slab transposed into its send buffer, every block
/// "sent" (copied from the sender's send buffer to the receiver's receive buffer at the
/// plan's offsets), and placed by the plan's strided copies.
void simulate_nccl(const Plan& plan) {
  const int P = plan.gpus();
  const std::vector<std::int64_t> in = input(plan);
  std::vector<std::vector<std::int64_t>> send(P), recv(P), out(P);
  std::vector<std::vector<int>> received(P), placed(P);
  for (int p = 0; p < P; ++p) {
    // The slab (rows in.first(p) on) transposed: N x in.count(p).
    const std::int64_t m = plan.in.count(p), first = plan.in.first(p);
    send[p].assign(static_cast<std::size_t>(plan.slab(p)), kUnwritten);
    for (std::int64_t r = 0; r < m; ++r)
      for (std::int64_t c = 0; c < plan.cols(); ++c)
        send[p][static_cast<std::size_t>(c * m + r)] =
            in[static_cast<std::size_t>((first + r) * plan.cols() + c)];
    recv[p].assign(static_cast<std::size_t>(plan.output(p)), kUnwritten);
    out[p].assign(recv[p].size(), kUnwritten);
    received[p].assign(recv[p].size(), 0);
    placed[p].assign(recv[p].size(), 0);
  }
  for (int p = 0; p < P; ++p) {
    // The blocks p sends cover its send buffer, one after the other, q by q.
    std::int64_t next = 0;
    for (int q = 0; q < P; ++q) {
      REQUIRE(plan.send_offset(p, q) == next);
      next += plan.block(p, q);
    }
    REQUIRE(next == plan.slab(p));
    for (int q = 0; q < P; ++q)
      for (std::int64_t k = 0; k < plan.block(p, q); ++k)
        write(recv[q], received[q], plan.recv_offset(q, p) + k,
              send[p][static_cast<std::size_t>(plan.send_offset(p, q) + k)]);
  }
  for (int q = 0; q < P; ++q) {
    for (const int writes : received[q]) REQUIRE(writes == 1);
    for (int from = 0; from < P; ++from) {
      const step18::Copy2D c = plan.place(q, from);
      for (std::int64_t i = 0; i < c.rows; ++i)
        for (std::int64_t j = 0; j < c.cols; ++j) {
          const std::int64_t at = c.from + i * c.from_pitch + j;
          REQUIRE(at < static_cast<std::int64_t>(recv[q].size()));
          write(out[q], placed[q], c.to + i * c.to_pitch + j,
                recv[q][static_cast<std::size_t>(at)]);
        }
    }
    require_exact(plan, q, out[q], placed[q]);
  }
}

/// The peer variant on the CPU: element (r, c) of every slab written where peer_row(p, c) says
/// output row c starts, r elements further.
void simulate_peer(const Plan& plan) {
  const int P = plan.gpus();
  const std::vector<std::int64_t> in = input(plan);
  std::vector<std::vector<std::int64_t>> out(P);
  std::vector<std::vector<int>> writes(P);
  for (int q = 0; q < P; ++q) {
    out[q].assign(static_cast<std::size_t>(plan.output(q)), kUnwritten);
    writes[q].assign(out[q].size(), 0);
  }
  for (int p = 0; p < P; ++p)
    for (std::int64_t r = 0; r < plan.in.count(p); ++r)
      for (std::int64_t c = 0; c < plan.cols(); ++c) {
        const step18::Target t = plan.peer_row(p, c);
        REQUIRE(t.gpu >= 0);
        REQUIRE(t.gpu < P);
        write(out[t.gpu], writes[t.gpu], t.offset + r,
              in[static_cast<std::size_t>((plan.in.first(p) + r) * plan.cols() + c)]);
      }
  for (int q = 0; q < P; ++q) require_exact(plan, q, out[q], writes[q]);
}

}  // namespace

TEST_CASE("18-all-to-all: the split gives every row once, sizes differing by one at most",
          "[all-to-all]") {
  for (int P = 1; P <= 8; ++P)
    for (std::int64_t rows = 1; rows <= 50; ++rows) {
      const Split s{rows, P};
      INFO(rows << " rows over " << P << " GPUs");
      REQUIRE(s.first(0) == 0);
      REQUIRE(s.first(P) == rows);
      for (int p = 0; p < P; ++p) {
        REQUIRE(s.count(p) == s.first(p + 1) - s.first(p));
        REQUIRE(s.count(p) >= 0);
        REQUIRE(s.count(p) >= s.count(P - 1));      // the first hold the most...
        REQUIRE(s.count(p) <= s.count(P - 1) + 1);  // ... one row more at most
        for (std::int64_t r = s.first(p); r < s.first(p + 1); ++r) REQUIRE(s.owner(r) == p);
      }
    }
}

TEST_CASE("18-all-to-all: the split's offsets past 2^31 and 2^32 rows", "[all-to-all]") {
  for (const std::int64_t rows :
       {(std::int64_t{1} << 31) + 1, (std::int64_t{1} << 32) + 3, (std::int64_t{1} << 33) - 1})
    for (int P = 1; P <= 8; ++P) {
      const Split s{rows, P};
      INFO(rows << " rows over " << P << " GPUs");
      REQUIRE(s.first(P) == rows);
      for (int p = 0; p < P; ++p) {
        REQUIRE(s.count(p) - s.count(P - 1) <= 1);
        REQUIRE(s.owner(s.first(p)) == p);
        REQUIRE(s.owner(s.first(p + 1) - 1) == p);
      }
    }
}

TEST_CASE("18-all-to-all: the plan's blocks end where each buffer ends, past 2^32 elements",
          "[all-to-all]") {
  const Plan plan(100003, 65537, 3);  // 6.6e9 elements
  for (int p = 0; p < 3; ++p) {
    REQUIRE(plan.send_offset(p, 2) + plan.block(p, 2) == plan.slab(p));
    REQUIRE(plan.recv_offset(p, 2) + plan.block(2, p) == plan.output(p));
    const step18::Copy2D last = plan.place(p, 2);
    REQUIRE(last.to + (last.rows - 1) * last.to_pitch + last.cols == plan.output(p));
    const step18::Target t = plan.peer_row(p, plan.cols() - 1);  // the last output row
    REQUIRE(t.gpu == 2);
    REQUIRE(t.offset + plan.in.count(p) == plan.output(2) - plan.rows() + plan.in.first(p + 1));
  }
}

TEST_CASE("18-all-to-all: the nccl variant's exchange, simulated, transposes every shape",
          "[all-to-all]") {
  for (int P = 1; P <= 8; ++P)
    for (const auto& [rows, cols] : kShapes) {
      INFO(rows << " x " << cols << " over " << P << " GPUs");
      simulate_nccl(Plan(rows, cols, P));
    }
}

TEST_CASE("18-all-to-all: the peer variant's writes, simulated, transpose every shape",
          "[all-to-all]") {
  for (int P = 1; P <= 8; ++P)
    for (const auto& [rows, cols] : kShapes) {
      INFO(rows << " x " << cols << " over " << P << " GPUs");
      simulate_peer(Plan(rows, cols, P));
    }
}

TEST_CASE("18-all-to-all: the input's values are exact in their type and differ", "[all-to-all]") {
  static_assert(step18::element<float>(12345) == step18::element<float>(12345));  // constexpr
  std::vector<float> f;
  for (std::int64_t k = 0; k < 1000; ++k) {
    const float v = step18::element<float>(k),
                w = step18::element<float>(k + (std::int64_t{1} << 32));
    REQUIRE(v >= 0);
    REQUIRE(v < 16777216.0f);  // 2^24: an integer a float holds exactly
    REQUIRE(v != w);           // the 64-bit index counts (one chance in 2^24 of equal values)
    const double d = step18::element<double>(k);
    REQUIRE(d < 9007199254740992.0);  // 2^53
    REQUIRE(d == static_cast<double>(static_cast<std::int64_t>(d)));
    f.push_back(v);
  }
  std::sort(f.begin(), f.end());
  REQUIRE(std::unique(f.begin(), f.end()) == f.end());  // 1000 of 2^24 values: none repeats
}
