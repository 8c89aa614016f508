/// @file plan.hpp
/// @brief Step 18's plan: the rows of an M x N matrix split over P GPUs, and who sends what to
/// whom so that each GPU ends with its rows of the N x M transpose.
///
/// Pure host C++, no CUDA and no NCCL, so that the CPU tests check it. The kernels call the
/// same constexpr functions (the step is compiled with --expt-relaxed-constexpr), so what the
/// tests check is what the GPUs do.
#pragma once

#include <cstdint>

namespace step18 {

/// Rows 0 .. rows - 1 split over @c parts GPUs as evenly as possible: the first rows % parts
/// GPUs hold one row more than the others (a GPU holds none where rows < parts). The two
/// divisions are made once, here: the kernels ask first() and count() for every element.
struct Split {
  /// @p rows rows over @p parts GPUs.
  constexpr Split(std::int64_t rows, int parts)
      : rows(rows), parts(parts), base(rows / parts), extra(rows % parts) {}

  std::int64_t rows;   ///< Rows in all.
  int parts;           ///< GPUs.
  std::int64_t base;   ///< Rows of the smaller parts.
  std::int64_t extra;  ///< How many parts hold base + 1 rows: the first ones.

  /// The first row of part @p p; first(parts) is rows.
  constexpr std::int64_t first(int p) const { return p * base + (p < extra ? p : extra); }
  /// Rows of part @p p.
  constexpr std::int64_t count(int p) const { return base + (p < extra ? 1 : 0); }
  /// The part that holds row @p r.
  constexpr int owner(std::int64_t r) const {
    const std::int64_t big = extra * (base + 1);  // the rows of the parts with one more
    return static_cast<int>(r < big ? r / (base + 1) : extra + (r - big) / base);
  }
};

/// A strided copy: @c rows rows of @c cols elements, from @c from (rows @c from_pitch elements
/// apart) to @c to (rows @c to_pitch apart); offsets in elements.
struct Copy2D {
  std::int64_t from, from_pitch;  ///< Source offset and row pitch.
  std::int64_t to, to_pitch;      ///< Destination offset and row pitch.
  std::int64_t rows, cols;        ///< Its shape.
};

/// Where the peer variant writes: the GPU and the offset in its output.
struct Target {
  int gpu;              ///< The GPU that owns the output row.
  std::int64_t offset;  ///< Element offset in that GPU's output.
};

/// The transpose of an M x N input, split by rows over P GPUs, into the N x M output split the
/// same way (by output rows, which are input columns).
///
/// GPU p holds in.count(p) input rows of N (its slab) and out.count(p) output rows of M. Output
/// row c is input column c: the block of the output that GPU p can make alone, its rows
/// transposed, and that GPU q owns is in.count(p) input rows x out.count(q) input columns.
///
/// The nccl variant's three buffers on GPU p, all row-major:
///   send: the slab transposed, N x in.count(p). The block for q is its rows out.first(q) on:
///         contiguous, so it goes out as it is;
///   recv: the blocks from GPUs 0 .. P - 1, one after the other, each out.count(p) rows of
///         in.count(from) elements;
///   out:  out.count(p) rows of M. The block from GPU f fills columns in.first(f) on of every
///         row: a strided copy (place()).
struct Plan {
  Split in;   ///< The M input rows over the GPUs.
  Split out;  ///< The N output rows (input columns) over the GPUs.

  /// The plan for an @p rows x @p cols input over @p gpus GPUs.
  constexpr Plan(std::int64_t rows, std::int64_t cols, int gpus)
      : in{rows, gpus}, out{cols, gpus} {}

  constexpr std::int64_t rows() const { return in.rows; }   ///< M.
  constexpr std::int64_t cols() const { return out.rows; }  ///< N.
  constexpr int gpus() const { return in.parts; }           ///< P.

  /// Elements of GPU @p p's slab (and of its send buffer).
  constexpr std::int64_t slab(int p) const { return in.count(p) * cols(); }
  /// Elements of GPU @p p's output (and of its receive buffer).
  constexpr std::int64_t output(int p) const { return out.count(p) * rows(); }

  /// Elements GPU @p from sends to GPU @p to (and @p to receives from @p from).
  constexpr std::int64_t block(int from, int to) const { return out.count(to) * in.count(from); }
  /// Where that block starts in @p from's send buffer.
  constexpr std::int64_t send_offset(int from, int to) const {
    return out.first(to) * in.count(from);
  }
  /// Where it lands in @p to's receive buffer.
  constexpr std::int64_t recv_offset(int to, int from) const {
    return out.count(to) * in.first(from);
  }
  /// The placing of the block from @p from, in @p to's receive buffer, into @p to's output.
  constexpr Copy2D place(int to, int from) const {
    Copy2D c{};
    c.from = recv_offset(to, from);  // where the block landed: rows of in.count(from)
    c.from_pitch = in.count(from);
    c.to = in.first(from);  // its first column, in output rows of M
    c.to_pitch = rows();
    c.rows = out.count(to);
    c.cols = in.count(from);
    return c;
  }
  /// Where the peer variant writes column @p c of GPU @p p's slab: output row c, on the GPU
  /// that owns it, from column in.first(p) on; the slab's row r goes r elements further.
  constexpr Target peer_row(int p, std::int64_t c) const {
    const int q = out.owner(c);
    return {q, (c - out.first(q)) * rows() + in.first(p)};
  }
};

/// Input element (@p r, @p c) of an M x N matrix is element(r N + c): a hash of its 64-bit
/// index (splitmix64's finaliser), so that every GPU makes its rows, and checks its output
/// rows, without the rest of the matrix. The value is an integer below 2^24 (float) or 2^53
/// (double): exact in the type, never NaN, so that comparing bits is comparing values.
template <typename T>
constexpr T element(std::int64_t index) {
  std::uint64_t x = static_cast<std::uint64_t>(index) + 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  x ^= x >> 31;
  return static_cast<T>(x >> (sizeof(T) == 4 ? 40 : 11));
}

}  // namespace step18
