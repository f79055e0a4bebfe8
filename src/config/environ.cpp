#include <unistd.h>

#include "snowcar/config/config.h"

extern char** environ;  // POSIX; declared here because <unistd.h> only does so with _GNU_SOURCE

namespace snowcar::config {

std::map<std::string, std::string> EnvironFromProcess() {
  std::map<std::string, std::string> out;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    if (!text.starts_with("SNOWCAR_")) continue;
    const size_t eq = text.find('=');
    if (eq == std::string_view::npos) continue;
    out.emplace(text.substr(0, eq), text.substr(eq + 1));
  }
  return out;
}

}  // namespace snowcar::config
