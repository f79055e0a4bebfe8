#include "value_checks.h"

#include <algorithm>
#include <cctype>

namespace snowcar::config {

std::string CheckHostPort(std::string_view value) {
  if (value.empty()) return "";  // empty means "off"
  const size_t colon = value.rfind(':');
  if (colon == std::string_view::npos) return "must be host:port, e.g. 0.0.0.0:9464";
  const std::string_view host = value.substr(0, colon);
  const std::string_view port = value.substr(colon + 1);
  if (host.empty()) return "must name a host before the ':' (0.0.0.0 listens on all interfaces)";
  if (host.front() == '[' ? host.back() != ']' : host.find(':') != std::string_view::npos) {
    return "an IPv6 host must be written in brackets, e.g. [::1]:9464";
  }
  const bool digits =
      !port.empty() && port.size() <= 5 &&
      std::all_of(port.begin(), port.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
  if (!digits || std::stoi(std::string(port)) > 65535) {
    return "port must be a number from 0 to 65535";
  }
  return "";
}

std::string RefuseExactlyOnceRequired(std::string_view value) {
  std::string lower(value);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lower != "required") return "";
  return "cannot be 'required': the snowcar source delivers at least once (after a crash, rows "
         "Kafka acknowledged but the state store had not yet recorded may be sent again); "
         "remove the key to run with that guarantee";
}

std::string RefuseTopicsRegex(std::string_view /*value*/) {
  return "is not supported: the sink consumes the topics listed in snow.sink.topics (or "
         "topics); list them there";
}

}  // namespace snowcar::config
