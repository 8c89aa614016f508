// The program 13-lines: the course's shared runner (common/runner.hpp) applied to this
// step's description, step13::step() in lines.cu.
// Build it alone with: cmake --build build --target 13-lines
#include "13-lines/lines.hpp"
#include "runner.hpp"

int main(int argc, char** argv) {
  return tt::run_step(step13::step(), argc, argv);
}
