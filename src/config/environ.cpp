// SPDX-License-Identifier: Apache-2.0
#include <unistd.h>

#include <cctype>

#include "snowcar/config/config.h"

extern char** environ;  // POSIX; declared here because <unistd.h> only does so with _GNU_SOURCE

namespace snowcar::config {

std::map<std::string, std::string> EnvironFromProcess() {
  std::map<std::string, std::string> out;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    if (!text.starts_with(kEnvironmentPrefix)) continue;
    const size_t eq = text.find('=');
    if (eq == std::string_view::npos) continue;
    out.emplace(text.substr(0, eq), text.substr(eq + 1));
  }
  return out;
}

// A `.` is written `_`, so a `_` of the key is written `__`: the mapping can be read back
// unambiguously, left to right.
std::string EnvironmentName(std::string_view key) {
  std::string out(kEnvironmentPrefix);
  for (const char c : key) {
    if (c == '.') {
      out += '_';
    } else if (c == '_') {
      out += "__";
    } else {
      out += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
  }
  return out;
}

std::string KeyFromEnvironmentName(std::string_view name) {
  if (name.starts_with(kEnvironmentPrefix)) name.remove_prefix(kEnvironmentPrefix.size());
  std::string key;
  key.reserve(name.size());
  for (size_t i = 0; i < name.size(); ++i) {
    if (name[i] != '_') {
      key += static_cast<char>(std::tolower(static_cast<unsigned char>(name[i])));
    } else if (i + 1 < name.size() && name[i + 1] == '_') {
      key += '_';
      ++i;
    } else {
      key += '.';
    }
  }
  return key;
}

}  // namespace snowcar::config
