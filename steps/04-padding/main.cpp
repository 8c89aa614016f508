// The program 04-padding: the course's shared runner (common/runner.hpp) applied to
// this step's description, step04::step() in padding.cu.
// Build it alone with: cmake --build build --target 04-padding
#include "04-padding/padding.hpp"
#include "runner.hpp"

int main(int argc, char** argv) {
  return tt::run_step(step04::step(), argc, argv);
}
