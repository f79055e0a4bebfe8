// SPDX-License-Identifier: Apache-2.0
#include "demo/progress.h"

#include <boost/json.hpp>
#include <chrono>
#include <cstdlib>
#include <sstream>

#include "snowcar/api/client.h"
#include "snowcar/common/url_encoding.h"

namespace snowcar::demo {
namespace {

std::optional<boost::json::object> GetJson(const std::string& socket, const std::string& target) {
  // Short deadlines: a progress tick must not hang on a sidecar that is shutting down.
  api::Client client({.connect_timeout = std::chrono::milliseconds(500),
                      .request_timeout = std::chrono::milliseconds(2000)});
  auto answer = client.Get(socket, target);
  if (!answer.ok() || answer->status != 200) return std::nullopt;
  boost::system::error_code ec;
  auto parsed = boost::json::parse(answer->body, ec);
  if (ec || !parsed.is_object()) return std::nullopt;
  return std::move(parsed.as_object());
}

int64_t Int(const boost::json::object& o, const char* name) {
  const auto* v = o.if_contains(name);
  return (v != nullptr && v->is_int64()) ? v->as_int64() : 0;
}

std::string Str(const boost::json::object& o, const char* name) {
  const auto* v = o.if_contains(name);
  if (v == nullptr || v->is_null()) return "";
  return v->is_string() ? std::string(v->as_string()) : boost::json::serialize(*v);
}

}  // namespace

int64_t SumMetric(const std::string& text, const std::string& name) {
  int64_t sum = 0;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(name, 0) != 0 || line.size() <= name.size()) continue;
    const char next = line[name.size()];
    if (next != '{' && next != ' ') continue;  // another family sharing the prefix
    const size_t space = line.rfind(' ');
    sum += std::strtoll(line.c_str() + space + 1, nullptr, 10);
  }
  return sum;
}

Progress ReadProgress(const std::string& socket) {
  Progress progress;
  auto tables = GetJson(socket, "/v1/source/tables");
  if (!tables) return progress;
  if (const auto* list = tables->if_contains("tables"); list != nullptr && list->is_array()) {
    for (const auto& item : list->as_array()) {
      if (!item.is_object()) continue;
      const auto& o = item.as_object();
      TableProgress t;
      t.alias = Str(o, "alias");
      t.state = Str(o, "state");
      t.phase = Str(o, "phase");
      t.emitted = Int(o, "rows_emitted");
      t.suppressed = Int(o, "duplicates_suppressed");
      t.skipped = Int(o, "rows_skipped");
      t.pages = Int(o, "pages_fetched");
      t.lag_seconds = Int(o, "lag_seconds");
      t.last_error = Str(o, "last_error");
      progress.tables.push_back(std::move(t));
    }
  }
  api::Client client({.connect_timeout = std::chrono::milliseconds(500),
                      .request_timeout = std::chrono::milliseconds(2000)});
  auto metrics = client.Get(socket, "/metrics");
  if (!metrics.ok() || metrics->status != 200) return progress;
  progress.sink.applied = SumMetric(metrics->body, "snowcar_sink_records_total");
  progress.sink.failed = SumMetric(metrics->body, "snowcar_sink_failures_total");
  progress.answered = true;
  return progress;
}

bool SidecarReady(const std::string& socket) {
  api::Client client({.connect_timeout = std::chrono::milliseconds(500),
                      .request_timeout = std::chrono::milliseconds(2000)});
  auto answer = client.Get(socket, "/v1/ready");
  return answer.ok() && answer->status == 200;
}

std::optional<std::string> CachedSysId(const std::string& socket, const std::string& table,
                                       const std::string& field, const std::string& value) {
  auto body = GetJson(socket, "/v1/sink/correlation/" + PercentEncode(table) + "/" +
                                  PercentEncode(field) + "/" + PercentEncode(value));
  if (!body) return std::nullopt;
  std::string id = Str(*body, "sys_id");
  if (id.empty()) return std::nullopt;
  return id;
}

}  // namespace snowcar::demo
