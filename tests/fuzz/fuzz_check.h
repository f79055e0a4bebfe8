// SPDX-License-Identifier: Apache-2.0
// What the fuzz targets share: a check that stops the run with a message libFuzzer records
// next to the crashing input, and a splitter for multi-part inputs.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace snowcar::fuzz {

// Invariant violations abort, so libFuzzer saves the input as a crash artifact.
#define FUZZ_CHECK(cond, what)                                                                   \
  do {                                                                                           \
    if (!(cond)) {                                                                               \
      std::fprintf(stderr, "fuzz invariant failed: %s (%s) at %s:%d\n", (what), #cond, __FILE__, \
                   __LINE__);                                                                    \
      std::abort();                                                                              \
    }                                                                                            \
  } while (false)

// Splits `input` at every `separator` line ("\n<separator>\n"), so seed files stay readable:
// part one, a line holding only the separator, part two, ...
inline std::vector<std::string_view> SplitParts(std::string_view input,
                                                std::string_view separator) {
  const std::string marker = "\n" + std::string(separator) + "\n";
  std::vector<std::string_view> parts;
  while (true) {
    const size_t at = input.find(marker);
    if (at == std::string_view::npos) {
      parts.push_back(input);
      return parts;
    }
    parts.push_back(input.substr(0, at));
    input.remove_prefix(at + marker.size());
  }
}

}  // namespace snowcar::fuzz
