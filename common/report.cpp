#include "report.hpp"

#include <cstdio>
#include <ctime>
#include <iomanip>
#include <sstream>

namespace tt {

void add_ratios(std::vector<Result>& results) {
  auto find = [&](const Result& r, const char* variant) -> const Result* {
    for (const auto& x : results)
      if (x.step == "references" && x.variant == variant && x.dtype == r.dtype &&
          x.shape.rows == r.shape.rows && x.shape.cols == r.shape.cols && x.stats.median_ms > 0)
        return &x;
    return nullptr;
  };
  for (auto& r : results) {
    if (const Result* c = find(r, "memcpy")) r.pct_copy = 100.0 * r.gbps / c->gbps;
    if (const Result* b = find(r, "cublas")) r.pct_cublas = 100.0 * r.gbps / b->gbps;
  }
}

namespace {
std::string pct(const std::optional<double>& v) {
  if (!v) return "-";
  std::ostringstream os;
  os << std::fixed << std::setprecision(1) << *v;
  return os.str();
}
}  // namespace

std::string fixed(double v, int digits) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(digits) << v;
  return os.str();
}

std::string format_table(const std::vector<Result>& results) {
  std::ostringstream os;
  os << std::left << std::setw(32) << "kernel" << std::setw(8) << "block" << std::right
     << std::setw(11) << "median ms" << std::setw(10) << "min ms" << std::setw(10) << "max ms"
     << std::setw(9) << "GB/s" << std::setw(8) << "%peak" << std::setw(8) << "%copy" << std::setw(9)
     << "%cuBLAS"
     << "  check\n";
  bool any_l2 = false;
  for (const auto& r : results) {
    const std::string name = r.step + "/" + r.variant;
    const bool timed = r.stats.samples > 0;  // --once: launched and verified, not timed
    const auto shown = [&](double v, int digits) { return timed ? fixed(v, digits) : "-"; };
    os << std::left << std::setw(32) << name << std::setw(8) << (r.block.empty() ? "-" : r.block)
       << std::right << std::setw(11) << shown(r.stats.median_ms, 4) << std::setw(10)
       << shown(r.stats.min_ms, 4) << std::setw(10) << shown(r.stats.max_ms, 4) << std::setw(9)
       << shown(r.gbps, 0) << std::setw(8) << shown(r.pct_peak, 1) << std::setw(8)
       << pct(r.pct_copy) << std::setw(9) << pct(r.pct_cublas) << "  "
       << (r.verified ? "ok" : "WRONG") << (r.fits_l2 ? " (L2)" : "") << "\n";
    any_l2 = any_l2 || r.fits_l2;
  }
  os << "GB/s = 2 x M x N x sizeof(T) / median time (read + write, decimal). %copy and %cuBLAS: "
        "of memcpy device-to-device and cublas<T>geam in this run.";
  if (any_l2)
    os << "\n(L2): input and output together fit in the L2 cache: this measures the cache, "
          "not device memory.";
  os << "\n";
  return os.str();
}

std::string csv_header() {
  return "step,variant,block,dtype,rows,cols,median_ms,min_ms,max_ms,samples,gbps,pct_peak,"
         "pct_copy,pct_cublas,verified,fits_l2,device,cuda,date";
}

std::string csv_row(const Result& r) {
  std::ostringstream os;
  const auto opt = [](const std::optional<double>& v) { return v ? fixed(*v, 2) : std::string(); };
  os << r.step << "," << r.variant << "," << r.block << "," << dtype_name(r.dtype) << ","
     << r.shape.rows << "," << r.shape.cols << "," << fixed(r.stats.median_ms, 5) << ","
     << fixed(r.stats.min_ms, 5) << "," << fixed(r.stats.max_ms, 5) << "," << r.stats.samples << ","
     << fixed(r.gbps, 1) << "," << fixed(r.pct_peak, 2) << "," << opt(r.pct_copy) << ","
     << opt(r.pct_cublas) << "," << (r.verified ? "true" : "false") << ","
     << (r.fits_l2 ? "true" : "false") << ",\"" << r.device << "\"," << r.cuda << "," << r.date;
  return os.str();
}

std::string json_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '"' || c == '\\') {
      o += '\\';
      o += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
      o += buf;
    } else {
      o += c;
    }
  }
  return o;
}

std::string json_line(const Result& r) {
  std::ostringstream os;
  const auto opt = [](const std::optional<double>& v) { return v ? fixed(*v, 2) : "null"; };
  os << "{\"step\":\"" << r.step << "\",\"variant\":\"" << r.variant << "\",\"block\":\"" << r.block
     << "\",\"dtype\":\"" << dtype_name(r.dtype) << "\",\"rows\":" << r.shape.rows
     << ",\"cols\":" << r.shape.cols << ",\"median_ms\":" << fixed(r.stats.median_ms, 5)
     << ",\"min_ms\":" << fixed(r.stats.min_ms, 5) << ",\"max_ms\":" << fixed(r.stats.max_ms, 5)
     << ",\"samples\":" << r.stats.samples << ",\"gbps\":" << fixed(r.gbps, 1)
     << ",\"pct_peak\":" << fixed(r.pct_peak, 2) << ",\"pct_copy\":" << opt(r.pct_copy)
     << ",\"pct_cublas\":" << opt(r.pct_cublas)
     << ",\"verified\":" << (r.verified ? "true" : "false")
     << ",\"fits_l2\":" << (r.fits_l2 ? "true" : "false") << ",\"device\":\""
     << json_escape(r.device) << "\",\"cuda\":\"" << r.cuda << "\",\"date\":\"" << r.date << "\"}";
  return os.str();
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace tt
