// SPDX-License-Identifier: Apache-2.0
#include "support/metrics_text.h"

#include <cstdlib>
#include <string>

namespace snowcar::testsupport {

double MetricSum(std::string_view text, std::string_view name) {
  if (text.find("# TYPE") == std::string_view::npos) return -1;
  double sum = 0;
  while (!text.empty()) {
    const size_t end = text.find('\n');
    const std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    if (line.substr(0, name.size()) != name) continue;
    const char next = line.size() > name.size() ? line[name.size()] : '\0';
    if (next != '{' && next != ' ') continue;
    sum += std::atof(std::string(line.substr(line.rfind(' ') + 1)).c_str());
  }
  return sum;
}

}  // namespace snowcar::testsupport
