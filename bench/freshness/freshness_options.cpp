// SPDX-License-Identifier: Apache-2.0
#include "freshness_options.h"

#include <algorithm>
#include <charconv>
#include <map>

namespace snowcar::bench {
namespace {

std::optional<int> WholeNumber(const std::string& text, int min) {
  int value = 0;
  const auto [end, err] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (err != std::errc() || end != text.data() + text.size() || value < min) return std::nullopt;
  return value;
}

std::optional<Delivery> DeliveryByName(const std::string& name) {
  if (name == "alo") return Delivery::kAtLeastOnce;
  if (name == "eos-poll") return Delivery::kExactlyOncePoll;
  if (name == "eos-interval") return Delivery::kExactlyOnceInterval;
  return std::nullopt;
}

}  // namespace

std::optional<std::string> ParseFreshnessOptions(int argc, const char* const* argv,
                                                 FreshnessOptions* options) {
  FreshnessSettings& s = options->settings;
  const std::map<std::string, std::pair<int*, int>> numbers = {
      {"--tables", {&s.tables, 1}},
      {"--rows", {&s.rows, 1}},
      {"--rate", {&s.rate, 1}},
      {"--writer-threads", {&s.writer_threads, 1}},
      {"--creates", {&s.create_percent, 0}},
      {"--seconds", {&s.seconds, 1}},
      {"--poll-ms", {&s.poll_ms, 0}},
      {"--interval-ms", {&s.interval_ms, 10}},
      {"--partitions", {&s.partitions, 1}},
      {"--rounds", {&options->rounds, 1}}};
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag.rfind("--benchmark_", 0) == 0) continue;
    if (flag == "--exactly-once") {
      options->deliveries = {Delivery::kExactlyOncePoll, Delivery::kExactlyOnceInterval};
      continue;
    }
    if (i + 1 >= argc) return flag + " needs a value (or is not a flag of this bench)";
    const std::string value = argv[++i];
    if (const auto n = numbers.find(flag); n != numbers.end()) {
      const auto parsed = WholeNumber(value, n->second.second);
      if (!parsed) {
        std::string error = flag + " needs a whole number from ";
        error += std::to_string(n->second.second);
        error += ", got '" + value + "'";
        return error;
      }
      *n->second.first = *parsed;
    } else if (flag == "--kafka") {
      if (value != "embedded" && value != "real") {
        return "--kafka needs embedded or real, got '" + value + "'";
      }
      options->real_kafka = value == "real";
    } else if (flag == "--bootstrap") {
      s.bootstrap = value;
      options->real_kafka = true;
    } else if (flag == "--delivery") {
      options->deliveries.clear();
      for (size_t at = 0; at <= value.size();) {
        const size_t comma = std::min(value.find(',', at), value.size());
        const auto d = DeliveryByName(value.substr(at, comma - at));
        if (!d) {
          return "--delivery takes alo, eos-poll and eos-interval, comma-separated; got '" + value +
                 "'";
        }
        options->deliveries.push_back(*d);
        at = comma + 1;
      }
    } else if (flag == "--sidecar") {
      const size_t eq = value.find('=');
      if (eq == std::string::npos) {
        options->sidecars.emplace_back(value, value);
      } else {
        options->sidecars.emplace_back(value.substr(0, eq), value.substr(eq + 1));
      }
    } else if (flag == "--sidecar-property") {
      if (value.find('=') == std::string::npos) {
        return "--sidecar-property needs key=value, got '" + value + "'";
      }
      s.sidecar_properties.push_back(value);
    } else if (flag == "--kafka-server") {
      options->kafka_server = value;
    } else {
      return "unknown flag " + flag +
             " (the flags are listed in bench/freshness/freshness_options.h)";
    }
  }
  for (Delivery d : options->deliveries) {
    if (d != Delivery::kAtLeastOnce && !options->real_kafka) {
      return "exactly-once needs --kafka real or --bootstrap: the embedded broker has no "
             "faithful transactions";
    }
  }
  return std::nullopt;
}

}  // namespace snowcar::bench
