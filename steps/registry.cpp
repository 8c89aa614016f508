#include "registry.hpp"

#include "02-naive/naive.hpp"
#include "03-shared/shared.hpp"
#include "04-padding/padding.hpp"
#include "05-multi-element/multi_element.hpp"

namespace tt {

const std::vector<const Step*>& tutorial_steps() {
  static const std::vector<const Step*> steps = {&step02::step(), &step03::step(), &step04::step(),
                                                 &step05::step()};
  return steps;
}

}  // namespace tt
