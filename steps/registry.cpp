#include "registry.hpp"

#include "02-naive/naive.hpp"
#include "03-shared/shared.hpp"
#include "04-padding/padding.hpp"
#include "05-multi-element/multi_element.hpp"
#include "06-float4/float4.hpp"
#include "07-swizzle/swizzle.hpp"
#include "08-diagonal/diagonal.hpp"

namespace tt {

const std::vector<const Step*>& tutorial_steps() {
  static const std::vector<const Step*> steps = {&step02::step(), &step03::step(), &step04::step(),
                                                 &step05::step(), &step06::step(), &step07::step(),
                                                 &step08::step()};
  return steps;
}

}  // namespace tt
