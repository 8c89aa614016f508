#include "verify.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <sstream>
#include <thread>

namespace tt {
namespace {

// float: smallest positive normal is 0x00800000, largest finite 0x7F7FFFFF.
constexpr std::uint32_t kF32First = 0x00800000u;
constexpr std::uint64_t kF32Positives = 0x7F7FFFFFull - kF32First + 1;

template <typename T>
using Bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;

template <typename T>
Bits<T> bits_of(T v) {
  Bits<T> b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

template <typename T>
T from_bits(Bits<T> b) {
  T v;
  std::memcpy(&v, &b, sizeof v);
  return v;
}

/// Runs body(begin, end) over [0, n) split across host_threads() threads.
template <typename F>
void parallel_for(std::int64_t n, F body) {
  const std::int64_t hw = host_threads();
  const std::int64_t workers = std::min<std::int64_t>(hw, std::max<std::int64_t>(1, n / 64));
  if (workers <= 1) {
    body(std::int64_t{0}, n);
    return;
  }
  std::vector<std::thread> pool;
  const std::int64_t chunk = ceil_div(n, workers);
  for (std::int64_t w = 0; w < workers; ++w) {
    const std::int64_t b = w * chunk, e = std::min(n, b + chunk);
    if (b < e) pool.emplace_back(body, b, e);
  }
  for (auto& t : pool) t.join();
}

std::string where_from(std::optional<std::uint64_t> idx, Shape in_shape) {
  if (!idx) return "";
  std::ostringstream os;
  if (*idx < static_cast<std::uint64_t>(in_shape.count())) {
    os << " = in(" << *idx / in_shape.cols << ", " << *idx % in_shape.cols << ")";
  } else {
    os << " (a value no input element holds)";
  }
  return os.str();
}

template <typename T>
std::string show(T v, Shape in_shape) {
  char buf[96];
  const auto b = bits_of(v);
  if constexpr (sizeof(T) == 4) {
    std::snprintf(buf, sizeof buf, "%.9g [0x%08" PRIx32 "]", static_cast<double>(v), b);
  } else {
    std::snprintf(buf, sizeof buf, "%.17g [0x%016" PRIx64 "]", v, b);
  }
  std::string s = buf;
  std::uint8_t poison[sizeof(T)];
  std::memset(poison, kPoisonByte, sizeof poison);
  if (std::memcmp(&v, poison, sizeof(T)) == 0) return s + " (poison: never written)";
  const auto idx = fill_index(v);
  return s + (idx ? where_from(idx, in_shape) : " (not an input value)");
}

}  // namespace

template <>
float fill_value<float>(std::uint64_t index) {
  const std::uint64_t i = index % (2 * kF32Positives);
  const std::uint32_t sign = i >= kF32Positives ? 0x80000000u : 0u;
  return from_bits<float>(sign | static_cast<std::uint32_t>(kF32First + i % kF32Positives));
}

template <>
double fill_value<double>(std::uint64_t index) {
  return static_cast<double>(index % (1ull << 53)) + 1.0;
}

template <>
std::uint64_t fill_distinct_count<float>() {
  return 2 * kF32Positives;
}
template <>
std::uint64_t fill_distinct_count<double>() {
  return 1ull << 53;
}

template <>
std::optional<std::uint64_t> fill_index<float>(float value) {
  const std::uint32_t b = bits_of(value);
  const std::uint32_t mag = b & 0x7FFFFFFFu;
  if (mag < kF32First || mag > 0x7F7FFFFFu) return std::nullopt;
  return (b >> 31 ? kF32Positives : 0) + (mag - kF32First);
}

template <>
std::optional<std::uint64_t> fill_index<double>(double value) {
  if (!(value >= 1.0 && value <= 9007199254740992.0)) return std::nullopt;
  const double whole = static_cast<double>(static_cast<std::uint64_t>(value));
  if (whole != value) return std::nullopt;
  return static_cast<std::uint64_t>(value) - 1;
}

template <typename T>
void fill_input(std::vector<T>& data) {
  parallel_for(static_cast<std::int64_t>(data.size()), [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t i = b; i < e; ++i) data[i] = fill_value<T>(static_cast<std::uint64_t>(i));
  });
}

template <typename T>
void reference_transpose(const T* in, T* out, Shape s) {
  constexpr std::int64_t kBlock = 64;  // cache blocking: both sides stay in cache
  parallel_for(ceil_div(s.rows, kBlock), [&](std::int64_t rb0, std::int64_t rb1) {
    for (std::int64_t r0 = rb0 * kBlock; r0 < std::min(s.rows, rb1 * kBlock); r0 += kBlock) {
      for (std::int64_t c0 = 0; c0 < s.cols; c0 += kBlock) {
        const std::int64_t r1 = std::min(s.rows, r0 + kBlock), c1 = std::min(s.cols, c0 + kBlock);
        for (std::int64_t r = r0; r < r1; ++r)
          for (std::int64_t c = c0; c < c1; ++c) out[c * s.rows + r] = in[r * s.cols + c];
      }
    }
  });
}

template <typename T>
VerifyResult verify(const T* in, const T* out, Shape s, Expect expect, std::size_t max_report) {
  // The output has shape (cols x rows) for a transpose, (rows x cols) for a copy.
  const Shape out_shape = expect == Expect::transpose ? Shape{s.cols, s.rows} : s;
  VerifyResult result;
  result.checked = static_cast<std::uint64_t>(s.count());
  std::mutex m;
  std::vector<std::pair<std::int64_t, std::int64_t>> found;  // (row, col) of wrong elements
  T poison;
  std::memset(&poison, kPoisonByte, sizeof poison);

  constexpr std::int64_t kBlock = 64;  // blocked like the reference, so reads stay in cache
  parallel_for(ceil_div(out_shape.rows, kBlock), [&](std::int64_t rb0, std::int64_t rb1) {
    std::uint64_t wrong = 0, unwritten = 0;
    std::vector<std::pair<std::int64_t, std::int64_t>> local;
    const auto keep_first = [&] {  // keep only the max_report smallest (row, col)
      std::sort(local.begin(), local.end());
      if (local.size() > max_report) local.resize(max_report);
    };
    const std::int64_t rend = std::min(out_shape.rows, rb1 * kBlock);
    for (std::int64_t r0 = rb0 * kBlock; r0 < rend; r0 += kBlock) {
      for (std::int64_t c0 = 0; c0 < out_shape.cols; c0 += kBlock) {
        const std::int64_t r1 = std::min(rend, r0 + kBlock);
        const std::int64_t c1 = std::min(out_shape.cols, c0 + kBlock);
        for (std::int64_t r = r0; r < r1; ++r) {
          for (std::int64_t c = c0; c < c1; ++c) {
            // Reference: out(r, c) = in(c, r) for a transpose, in(r, c) for a copy.
            const T want = expect == Expect::transpose ? in[c * s.cols + r] : in[r * s.cols + c];
            const T got = out[r * out_shape.cols + c];
            if (std::memcmp(&want, &got, sizeof(T)) == 0) continue;
            ++wrong;
            if (std::memcmp(&got, &poison, sizeof(T)) == 0) ++unwritten;
            local.emplace_back(r, c);
            if (local.size() >= 4 * max_report + 64) keep_first();
          }
        }
      }
    }
    keep_first();
    std::lock_guard<std::mutex> lock(m);
    result.wrong += wrong;
    result.unwritten += unwritten;
    found.insert(found.end(), local.begin(), local.end());
  });
  std::sort(found.begin(), found.end());
  if (found.size() > max_report) found.resize(max_report);
  for (const auto& [r, c] : found) {
    const T want = expect == Expect::transpose ? in[c * s.cols + r] : in[r * s.cols + c];
    result.first.push_back({r, c, show(want, s), show(out[r * out_shape.cols + c], s)});
  }
  return result;
}

std::string describe(const VerifyResult& r) {
  std::ostringstream os;
  if (r.ok()) {
    os << "verified: all " << r.checked << " elements match the CPU reference bit for bit";
    return os.str();
  }
  os << "WRONG: " << r.wrong << " of " << r.checked << " elements differ from the CPU reference ("
     << r.unwritten << " never written)";
  for (const auto& m : r.first) {
    os << "\n  out(" << m.row << ", " << m.col << "): expected " << m.expected << ", got " << m.got;
  }
  return os.str();
}

template void fill_input<float>(std::vector<float>&);
template void fill_input<double>(std::vector<double>&);
template void reference_transpose<float>(const float*, float*, Shape);
template void reference_transpose<double>(const double*, double*, Shape);
template VerifyResult verify<float>(const float*, const float*, Shape, Expect, std::size_t);
template VerifyResult verify<double>(const double*, const double*, Shape, Expect, std::size_t);

}  // namespace tt
