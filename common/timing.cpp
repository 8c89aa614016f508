#include "timing.hpp"

#include <algorithm>
#include <stdexcept>

#include "error.hpp"

namespace tt {

Stats summarize(std::vector<double> ms) {
  if (ms.empty()) throw std::invalid_argument("summarize: no samples");
  std::sort(ms.begin(), ms.end());
  const std::size_t n = ms.size();
  Stats s;
  s.samples = static_cast<int>(n);
  s.min_ms = ms.front();
  s.max_ms = ms.back();
  s.median_ms = n % 2 == 1 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]);
  return s;
}

double effective_gbps(std::int64_t elements, std::size_t elem_bytes, double ms) {
  if (ms <= 0) return 0;
  return 2.0 * static_cast<double>(elements) * static_cast<double>(elem_bytes) / (ms * 1e-3) / 1e9;
}

namespace {
/// An event that is destroyed on every path.
struct Event {
  cudaEvent_t e = nullptr;
  Event() { TT_CUDA_CHECK(cudaEventCreate(&e)); }
  ~Event() {
    if (e) cudaEventDestroy(e);
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  Event(Event&& o) noexcept : e(o.e) { o.e = nullptr; }
};
}  // namespace

Stats time_launches(const std::function<void()>& launch, int warmup, int reps,
                    cudaStream_t stream) {
  for (int i = 0; i < warmup; ++i) launch();
  TT_CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<Event> start(reps), stop(reps);
  for (int i = 0; i < reps; ++i) {
    TT_CUDA_CHECK(cudaEventRecord(start[i].e, stream));
    launch();
    TT_CUDA_CHECK(cudaEventRecord(stop[i].e, stream));
  }
  TT_CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<double> ms(reps);
  for (int i = 0; i < reps; ++i) {
    float t = 0;
    TT_CUDA_CHECK(cudaEventElapsedTime(&t, start[i].e, stop[i].e));
    ms[i] = t;
  }
  return summarize(std::move(ms));
}

}  // namespace tt
