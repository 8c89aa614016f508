// The program 14-tma: the course's shared runner (common/runner.hpp) applied to this step's
// description, step14::step() in tma.cu.
// Build it alone with: cmake --build build --target 14-tma
#include "14-tma/tma.hpp"
#include "runner.hpp"

int main(int argc, char** argv) {
  return tt::run_step(step14::step(), argc, argv);
}
