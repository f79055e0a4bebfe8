// Extra per-value checks referenced by entries of the option table (OptionSpec::check).
// Each returns "" when the value is fine, otherwise what is wrong.
#pragma once

#include <string>
#include <string_view>

namespace snowcar::config {

// `host:port` with a non-empty host (a name, IPv4, or [IPv6]) and a port 0..65535.
std::string CheckHostPort(std::string_view value);

// Refuses `required`: the source promises at-least-once delivery, not exactly-once.
std::string RefuseExactlyOnceRequired(std::string_view value);

// Refuses any value: the sink subscribes to a fixed topic list, never to a pattern.
std::string RefuseTopicsRegex(std::string_view value);

}  // namespace snowcar::config
