// Statistics and bandwidth arithmetic: the numbers every table is made of.
#include "catch.hpp"
#include "device.hpp"
#include "report.hpp"
#include "timing.hpp"

TEST_CASE("median, min and max of odd and even sample counts", "[timing]") {
  const auto odd = tt::summarize({5.0, 1.0, 3.0, 100.0, 2.0});
  CHECK(odd.median_ms == 3.0);
  CHECK(odd.min_ms == 1.0);
  CHECK(odd.max_ms == 100.0);
  CHECK(odd.samples == 5);
  const auto even = tt::summarize({4.0, 1.0, 3.0, 2.0});
  CHECK(even.median_ms == 2.5);
  CHECK(tt::summarize({7.0}).median_ms == 7.0);
  CHECK_THROWS(tt::summarize({}));
}

TEST_CASE("effective bandwidth counts a read and a write of every element", "[timing]") {
  // 8192 x 8192 floats in 0.18 ms: 2 x 67108864 x 4 B / 0.18e-3 s = 2982.6 GB/s (decimal).
  CHECK(tt::effective_gbps(8192LL * 8192, 4, 0.18) == Approx(2982.616).epsilon(1e-6));
  CHECK(tt::effective_gbps(1000, 8, 1.0) == Approx(0.016));
  CHECK(tt::effective_gbps(1000, 8, 0.0) == 0.0);
}

TEST_CASE("theoretical peak from memory clock and bus width", "[timing]") {
  // H100 80GB HBM3: 2,619,000 kHz x 5120 bit / 8 x 2 = 3352.32 GB/s.
  CHECK(tt::peak_bandwidth_gbps(2619000, 5120) == Approx(3352.32));
  CHECK(tt::cuda_version_string(13000) == "13.0");
  CHECK(tt::cuda_version_string(12080) == "12.8");
}

TEST_CASE("an untimed result (--once) shows no time and no bandwidth", "[timing]") {
  tt::Result r;
  r.step = "02-naive";
  r.variant = "read-coalesced";
  r.shape = {64, 64};
  r.verified = true;
  const std::string untimed = tt::format_table({r});
  CHECK(untimed.find("0.0000") == std::string::npos);  // no time of zero printed as a time
  CHECK(untimed.find(" - ") != std::string::npos);
  r.stats = tt::summarize({0.5});
  r.gbps = tt::effective_gbps(64 * 64, 4, 0.5);
  CHECK(tt::format_table({r}).find("0.5000") != std::string::npos);
}
