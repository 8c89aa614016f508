// The references on their own: `references --rows 8192 --cols 8192` verifies and times
// cudaMemcpy, the copy kernel and cuBLAS geam; `--variant cublas` picks one.
#include "references.hpp"
#include "runner.hpp"

int main(int argc, char** argv) {
  return tt::run_step(tt::references(), argc, argv);
}
