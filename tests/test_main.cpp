// The test programs' main. The GPU test program exits with TT_SKIP_CODE when there is no
// CUDA device, so that ctest reports its tests as skipped rather than passed; listing the
// tests (what catch_discover_tests does at build time) needs no device.
#if TT_CATCH_MAJOR == 3
#include <catch2/catch_session.hpp>
#else
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#endif

#include <cstring>
#include <iostream>

#ifdef TT_GPU_TESTS
#include <cuda_runtime_api.h>
#endif

int main(int argc, char** argv) {
#ifdef TT_GPU_TESTS
  bool listing = false;
  for (int i = 1; i < argc; ++i) listing = listing || std::strncmp(argv[i], "--list", 6) == 0;
  int devices = 0;
  if (!listing && (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0)) {
    std::cout << "No CUDA device: GPU tests skipped.\n";
    return TT_SKIP_CODE;
  }
#endif
  return Catch::Session().run(argc, argv);
}
