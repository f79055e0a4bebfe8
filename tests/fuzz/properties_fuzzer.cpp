// SPDX-License-Identifier: Apache-2.0
// The .properties reader (ParseProperties / ParsePropertiesCollecting) and its escape
// functions. Input: properties text.
//
// Properties: the two readers agree (errors exactly when ParseProperties fails, the same
// entries otherwise); keys are unique and never empty; every entry written back with
// EscapePropertiesKey/Value reads back as the same entries in the same order. The input is
// also cut into a key and a value (at the first line break) that are escaped and read back,
// so the escapes see raw bytes the reader never produces.
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>

#include "fuzz_check.h"
#include "snowcar/config/properties.h"

namespace {

using snowcar::config::Properties;

std::string Write(const Properties& p) {
  std::string out;
  for (const auto& e : p.entries) {
    out += snowcar::config::EscapePropertiesKey(e.key) + "=" +
           snowcar::config::EscapePropertiesValue(e.value) + "\n";
  }
  return out;
}

bool SameEntries(const Properties& a, const Properties& b) {
  if (a.entries.size() != b.entries.size()) return false;
  for (size_t i = 0; i < a.entries.size(); ++i) {
    if (a.entries[i].key != b.entries[i].key || a.entries[i].value != b.entries[i].value) {
      return false;
    }
  }
  return true;
}

void CheckRoundTrip(const Properties& p) {
  auto again = snowcar::config::ParseProperties(Write(p), "written");
  FUZZ_CHECK(again.ok(), "escaped entries always read back");
  FUZZ_CHECK(SameEntries(p, *again), "escaped entries read back unchanged");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto strict = snowcar::config::ParseProperties(text, "fuzz.properties");
  std::vector<std::string> errors;
  const Properties collected =
      snowcar::config::ParsePropertiesCollecting(text, "fuzz.properties", errors);
  FUZZ_CHECK(strict.ok() == errors.empty(), "the readers agree on whether the text is valid");
  for (const auto& e : errors) {
    FUZZ_CHECK(e.starts_with("fuzz.properties:"), "every error names the origin and line");
  }
  if (!strict.ok()) {
    FUZZ_CHECK(strict.status().message().find("fuzz.properties:") != std::string::npos,
               "the error names the origin");
  } else {
    FUZZ_CHECK(SameEntries(*strict, collected), "the readers agree on the entries");
  }
  std::set<std::string> keys;
  for (const auto& e : collected.entries) {
    FUZZ_CHECK(!e.key.empty(), "no empty key");
    FUZZ_CHECK(keys.insert(e.key).second, "each key once");
    FUZZ_CHECK(e.line >= 1, "lines are 1-based");
  }
  CheckRoundTrip(collected);

  // Raw bytes through the escapes: key = first line, value = the rest.
  const size_t nl = text.find('\n');
  Properties raw;
  raw.entries.push_back(
      {std::string(text.substr(0, nl)),
       nl == std::string_view::npos ? std::string() : std::string(text.substr(nl + 1)), 1});
  if (!raw.entries[0].key.empty()) CheckRoundTrip(raw);
  return 0;
}
