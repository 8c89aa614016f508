// The program 15-order: the course's shared runner (common/runner.hpp) applied to this
// step's description, step15::step() in order.cu.
// Build it alone with: cmake --build build --target 15-order
#include "15-order/order.hpp"
#include "runner.hpp"

int main(int argc, char** argv) {
  return tt::run_step(step15::step(), argc, argv);
}
