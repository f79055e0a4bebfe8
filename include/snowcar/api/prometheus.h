// SPDX-License-Identifier: Apache-2.0
// Writing the Prometheus text exposition format that /metrics answers with. The source and
// the sink each append their families through these, so the format lives in one place.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "snowcar/common/histogram.h"

namespace snowcar::api {

// Appends "# HELP <name> <help>\n# TYPE <name> <type>\n"; type is "counter", "gauge" or
// "histogram".
void WriteMetricFamily(std::string& out, std::string_view name, std::string_view type,
                       std::string_view help);

// Appends one sample line, "<name>{<labels>} <value>\n", or "<name> <value>\n" when `labels`
// is empty. `labels` is the text between the braces with values already escaped:
// `column_family="dedup"`.
void WriteSample(std::string& out, std::string_view name, std::string_view labels, int64_t value);
// Doubles in the shortest form that reads back exactly (seconds, ratios).
void WriteSample(std::string& out, std::string_view name, std::string_view labels, double value);

// Appends the samples of one histogram series: "<name>_bucket{<labels>,le="..."}" per bound,
// cumulative, then le="+Inf", "<name>_sum" and "<name>_count". The family line (type
// "histogram") is the caller's, written once per family.
void WriteHistogram(std::string& out, std::string_view name, std::string_view labels,
                    const LatencyHistogram& histogram);

// A label value with backslash, double quote and line feed escaped as the format requires.
std::string EscapeLabelValue(std::string_view value);

}  // namespace snowcar::api
