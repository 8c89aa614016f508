#include "references.hpp"

#include <cublas_v2.h>

#include <string>

#include "error.hpp"

namespace tt {
namespace {

// ---------------------------------------------------------------------------------------------
// cudaMemcpy device-to-device: the practical ceiling. It moves the same bytes as a transpose
// (every element read once and written once) with no reordering at all.
template <typename T>
void run_memcpy(const LaunchPlan&, const T* in, T* out, Shape s, cudaStream_t stream) {
  TT_CUDA_CHECK(cudaMemcpyAsync(out, in, static_cast<std::size_t>(s.count()) * sizeof(T),
                                cudaMemcpyDeviceToDevice, stream));
}

// ---------------------------------------------------------------------------------------------
// A simple copy kernel: one 16-byte vector per thread, the last few elements one per thread.
constexpr int kCopyThreads = 256;

/// Element index of the scalar tail handled by thread @p i (past the last whole vector).
template <typename T>
TT_HD std::int64_t copy_vectors(std::int64_t n) {
  return n / static_cast<std::int64_t>(16 / sizeof(T));
}

template <typename T>
__global__ void copy_kernel(const T* __restrict__ in, T* __restrict__ out, std::int64_t n) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t vectors = copy_vectors<T>(n);
  if (i < vectors) {
    reinterpret_cast<uint4*>(out)[i] = reinterpret_cast<const uint4*>(in)[i];
  } else {
    const std::int64_t e = vectors * static_cast<std::int64_t>(16 / sizeof(T)) + (i - vectors);
    if (e < n) out[e] = in[e];
  }
}

template <typename T>
void run_copy_kernel(const LaunchPlan& p, const T* in, T* out, Shape s, cudaStream_t stream) {
  copy_kernel<T><<<p.grid, p.block, 0, stream>>>(in, out, s.count());
}

LaunchPlan copy_kernel_plan(const Problem& pb) {
  const std::int64_t n = pb.shape.count();
  const std::size_t size = dtype_size(pb.dtype);
  const std::int64_t per = 16 / static_cast<std::int64_t>(size);
  const std::int64_t vectors = n / per, threads = vectors + (n - vectors * per);
  LaunchPlan p;
  p.block = dim3(kCopyThreads);
  p.grid = dim3(static_cast<unsigned>(ceil_div(threads, kCopyThreads)));
  const std::int64_t elem = static_cast<std::int64_t>(size);
  for (Op op : {Op::load, Op::store}) {
    Access a;  // the 16-byte vectors
    a.code = op == Op::load ? "reinterpret_cast<const uint4*>(in)[i]"
                            : "reinterpret_cast<uint4*>(out)[i]";
    a.space = Space::global;
    a.op = op;
    a.width = 16;
    a.address = [vectors](const ThreadPos& t) -> std::optional<std::int64_t> {
      const std::int64_t i = static_cast<std::int64_t>(t.block.x) * kCopyThreads + t.thread.x;
      if (i >= vectors) return std::nullopt;
      return i * 16;
    };
    p.accesses.push_back(a);
    if (n % per == 0) continue;
    Access tail;  // the last n mod (16 / size) elements, one a thread: another instruction
    tail.code = op == Op::load ? "in[e]" : "out[e] = ...";
    tail.space = Space::global;
    tail.op = op;
    tail.width = static_cast<int>(size);
    tail.address = [vectors, per, n, elem](const ThreadPos& t) -> std::optional<std::int64_t> {
      const std::int64_t i = static_cast<std::int64_t>(t.block.x) * kCopyThreads + t.thread.x;
      const std::int64_t e = vectors * per + (i - vectors);
      if (i < vectors || e >= n) return std::nullopt;
      return e * elem;
    };
    p.accesses.push_back(tail);
  }
  return p;
}

// ---------------------------------------------------------------------------------------------
// cuBLAS geam: C = alpha op(A) + beta op(B), column-major. A row-major rows x cols input is
// a column-major cols x rows matrix A (lda = cols); the row-major cols x rows output is a
// column-major rows x cols matrix C (ldc = rows), and C = A^T. beta = 0 with B = C (the
// in-place form cuBLAS documents), so B is never read.
cublasHandle_t g_cublas = nullptr;

const char* cublas_status_name(cublasStatus_t s) {
  return cublasGetStatusName(s);
}

void check_cublas(cublasStatus_t s, const char* expr) {
  if (s == CUBLAS_STATUS_SUCCESS) return;
  const cudaError_t code =
      s == CUBLAS_STATUS_ALLOC_FAILED ? cudaErrorMemoryAllocation : cudaErrorUnknown;
  throw CudaError(code, std::string("cuBLAS error ") + cublas_status_name(s) + " in " + expr);
}
#define TT_CUBLAS_CHECK(expr) check_cublas((expr), #expr)

cublasHandle_t cublas_handle() {
  if (g_cublas == nullptr) TT_CUBLAS_CHECK(cublasCreate(&g_cublas));
  return g_cublas;
}

cublasStatus_t geam(cublasHandle_t h, int m, int n, const float* a, int lda, float* c, int ldc) {
  const float one = 1.0f, zero = 0.0f;
  return cublasSgeam(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, &one, a, lda, &zero, c, ldc, c, ldc);
}
cublasStatus_t geam(cublasHandle_t h, int m, int n, const double* a, int lda, double* c, int ldc) {
  const double one = 1.0, zero = 0.0;
  return cublasDgeam(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, &one, a, lda, &zero, c, ldc, c, ldc);
}

template <typename T>
void run_cublas(const LaunchPlan&, const T* in, T* out, Shape s, cudaStream_t stream) {
  cublasHandle_t h = cublas_handle();
  TT_CUBLAS_CHECK(cublasSetStream(h, stream));
  const int rows = static_cast<int>(s.rows), cols = static_cast<int>(s.cols);
  TT_CUBLAS_CHECK(geam(h, rows, cols, in, cols, out, rows));
}

LaunchPlan library_plan(const Problem&) {
  return LaunchPlan{};
}

Step make_references() {
  Step s;
  s.id = "references";
  s.title = "The ceilings and the library call: memcpy, a copy kernel, cuBLAS geam";
  s.variants = {
      {"memcpy",
       "cudaMemcpy device to device: the practical ceiling (a copy, not a transpose)",
       Expect::copy,
       library_plan,
       run_memcpy<float>,
       run_memcpy<double>,
       {},
       {}},
      {"copy-kernel",
       "a simple copy kernel, one 16-byte vector per thread",
       Expect::copy,
       copy_kernel_plan,
       run_copy_kernel<float>,
       run_copy_kernel<double>,
       {},
       {}},
      {"cublas",
       "cublasSgeam / cublasDgeam with op(A) = A^T: what you would call instead",
       Expect::transpose,
       library_plan,
       run_cublas<float>,
       run_cublas<double>,
       {},
       {}},
  };
  s.default_variant = "all";
  return s;
}

}  // namespace

const Step& references() {
  static const Step s = make_references();
  return s;
}

void release_references() {
  if (g_cublas != nullptr) {
    cublasDestroy(g_cublas);
    g_cublas = nullptr;
  }
}

}  // namespace tt
