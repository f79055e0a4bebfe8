// SPDX-License-Identifier: Apache-2.0
// Hand-written on purpose: prometheus-cpp would bring its own registry and metric objects beside
// the counters the sidecar already keeps; writing the text format from those is a few lines.
#include "snowcar/api/prometheus.h"

#include <charconv>
#include <cmath>

namespace snowcar::api {

void WriteMetricFamily(std::string& out, std::string_view name, std::string_view type,
                       std::string_view help) {
  out.append("# HELP ").append(name).append(" ").append(help).append("\n");
  out.append("# TYPE ").append(name).append(" ").append(type).append("\n");
}

namespace {

void AppendNameAndLabels(std::string& out, std::string_view name, std::string_view labels) {
  out.append(name);
  if (!labels.empty()) out.append("{").append(labels).append("}");
  out.append(" ");
}

}  // namespace

void WriteSample(std::string& out, std::string_view name, std::string_view labels, int64_t value) {
  AppendNameAndLabels(out, name, labels);
  out.append(std::to_string(value)).append("\n");
}

void WriteSample(std::string& out, std::string_view name, std::string_view labels, double value) {
  AppendNameAndLabels(out, name, labels);
  if (std::isnan(value)) {
    out.append("NaN");
  } else if (std::isinf(value)) {
    out.append(value > 0 ? "+Inf" : "-Inf");
  } else {
    char buf[32];
    const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
    out.append(buf, ec == std::errc() ? end : buf);
  }
  out.append("\n");
}

void WriteHistogram(std::string& out, std::string_view name, std::string_view labels,
                    const LatencyHistogram& histogram) {
  const std::string bucket = std::string(name) + "_bucket";
  const std::string prefix = labels.empty() ? std::string() : std::string(labels) + ",";
  int64_t cumulative = 0;
  for (size_t i = 0; i < LatencyHistogram::kBounds.size(); ++i) {
    cumulative += histogram.buckets[i];
    char bound[32];
    const auto [end, ec] = std::to_chars(bound, bound + sizeof bound, LatencyHistogram::kBounds[i]);
    WriteSample(out, bucket,
                prefix + "le=\"" + std::string(bound, ec == std::errc() ? end : bound) + "\"",
                cumulative);
  }
  WriteSample(out, bucket, prefix + "le=\"+Inf\"", histogram.count);
  WriteSample(out, std::string(name) + "_sum", labels, histogram.sum);
  WriteSample(out, std::string(name) + "_count", labels, histogram.count);
}

std::string EscapeLabelValue(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    if (c == '\\' || c == '"') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace snowcar::api
