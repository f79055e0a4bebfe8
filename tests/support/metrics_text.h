// SPDX-License-Identifier: Apache-2.0
// Reading figures out of a sidecar's /metrics page (the Prometheus text format), for the tests
// and benches that watch a running process through its counters.
#pragma once

#include <string_view>

namespace snowcar::testsupport {

// The sum of every sample of family `name` in `text` ("name{...} v" and "name v"; a family
// whose name merely starts with `name` does not count). -1 when `text` is not a metrics page
// (no "# TYPE" line: the socket did not answer), so a caller waiting for "at least 1" never
// mistakes a silent process for an idle one.
double MetricSum(std::string_view text, std::string_view name);

}  // namespace snowcar::testsupport
