// The program 09-alignment: the course's shared runner (common/runner.hpp) applied to
// this step's description, step09::step() in alignment.cu.
// Build it alone with: cmake --build build --target 09-alignment
#include "09-alignment/alignment.hpp"
#include "runner.hpp"

int main(int argc, char** argv) {
  return tt::run_step(step09::step(), argc, argv);
}
