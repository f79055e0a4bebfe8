// SPDX-License-Identifier: Apache-2.0
#include "testbed/emulator/control_api.h"

#include <boost/json.hpp>

#include "snowcar/testbed/emulator/data_gen.h"
#include "snowcar/testbed/emulator/row_render.h"
#include "testbed/emulator/url_params.h"

namespace snowcar::emulator {
namespace json = boost::json;
namespace {

EmulatorResponse Answer(int status, const json::value& body) {
  EmulatorResponse r;
  r.status = status;
  r.headers.push_back({"Content-Type", "application/json;charset=UTF-8"});
  r.body = json::serialize(body);
  return r;
}

EmulatorResponse Ok(json::object extra = {}) {
  extra["ok"] = true;
  return Answer(200, extra);
}

EmulatorResponse Fail(int status, const std::string& message) {
  return Answer(status, json::object{{"error", message}});
}

// Reads typed optional fields from a control body, remembering the first type error.
class Body {
 public:
  explicit Body(const std::string& text) {
    if (text.empty()) return;
    json::error_code ec;
    json::value v = json::parse(text, ec);
    if (ec || !v.is_object()) {
      error_ = "body must be a JSON object";
      return;
    }
    obj_ = std::move(v.get_object());
  }
  const std::string& error() const { return error_; }

  std::optional<int64_t> Int(std::string_view key) {
    const json::value* v = obj_.if_contains(key);
    if (v == nullptr) return std::nullopt;
    if (v->is_int64()) return v->get_int64();
    if (v->is_uint64()) return static_cast<int64_t>(v->get_uint64());
    if (v->is_double()) return static_cast<int64_t>(v->get_double());
    Bad(key, "a number");
    return std::nullopt;
  }
  std::optional<double> Number(std::string_view key) {
    const json::value* v = obj_.if_contains(key);
    if (v == nullptr) return std::nullopt;
    if (v->is_number()) return v->to_number<double>();
    Bad(key, "a number");
    return std::nullopt;
  }
  std::optional<std::string> String(std::string_view key) {
    const json::value* v = obj_.if_contains(key);
    if (v == nullptr) return std::nullopt;
    if (v->is_string()) return std::string(v->get_string());
    Bad(key, "a string");
    return std::nullopt;
  }
  std::optional<bool> Bool(std::string_view key) {
    const json::value* v = obj_.if_contains(key);
    if (v == nullptr) return std::nullopt;
    if (v->is_bool()) return v->get_bool();
    Bad(key, "true or false");
    return std::nullopt;
  }
  std::vector<std::string> Strings(std::string_view key) {
    std::vector<std::string> out;
    const json::value* v = obj_.if_contains(key);
    if (v == nullptr) return out;
    if (v->is_string()) {
      out.emplace_back(v->get_string());
    } else if (v->is_array()) {
      for (const auto& item : v->get_array()) {
        if (!item.is_string()) {
          Bad(key, "a list of strings");
          return {};
        }
        out.emplace_back(item.get_string());
      }
    } else {
      Bad(key, "a list of strings");
    }
    return out;
  }

 private:
  void Bad(std::string_view key, const char* expected) {
    if (!error_.empty()) return;
    error_.append("\"").append(key).append("\" must be ").append(expected);
  }
  json::object obj_;
  std::string error_;
};

json::object ClockJson(const EmulatorClock& clock) {
  const int64_t now = clock.NowMillis();
  return {{"now", FormatSnowTimestamp(now / 1000)}, {"now_ms", now}, {"frozen", clock.frozen()}};
}

EmulatorResponse ClockRoute(const ServerContext& ctx, const EmulatorRequest& req) {
  if (req.method == "GET") return Answer(200, ClockJson(ctx.clock));
  Body b(req.body);
  const auto action = b.String("action");
  const auto at = b.String("at");
  const auto seconds = b.Int("seconds");
  const auto millis = b.Int("millis");
  if (!b.error().empty()) return Fail(400, b.error());
  std::optional<int64_t> at_ms;
  if (at.has_value()) {
    auto parsed = ParseClockInstant(*at);
    if (!parsed.ok()) return Fail(400, parsed.status().message());
    at_ms = *parsed;
  }
  const std::string a = action.value_or("");
  if (a == "freeze") {
    at_ms ? ctx.clock.FreezeAt(*at_ms) : ctx.clock.Freeze();
  } else if (a == "unfreeze" || a == "real") {
    ctx.clock.Unfreeze();
  } else if (a == "set") {
    if (!at_ms) return Fail(400, "action \"set\" needs \"at\"");
    ctx.clock.Set(*at_ms);
  } else if (a == "advance") {
    if (!seconds && !millis) return Fail(400, "action \"advance\" needs \"seconds\" or \"millis\"");
    ctx.clock.Advance(seconds.value_or(0) * 1000 + millis.value_or(0));
  } else {
    return Fail(400, "\"action\" must be freeze, unfreeze, set or advance");
  }
  return Answer(200, ClockJson(ctx.clock));
}

FaultScope ReadScope(Body& b) {
  FaultScope scope;
  scope.method = b.String("method").value_or("");
  scope.path_prefix = b.String("path_prefix").value_or("");
  return scope;
}

EmulatorResponse Latency(const ServerContext& ctx, const EmulatorRequest& req) {
  Body b(req.body);
  LatencyKnob k;
  k.fixed_ms = b.Int("fixed_ms").value_or(0);
  k.jitter_ms = b.Int("jitter_ms").value_or(0);
  k.scope = ReadScope(b);
  if (!b.error().empty()) return Fail(400, b.error());
  if (k.fixed_ms < 0 || k.jitter_ms < 0) return Fail(400, "latency must not be negative");
  ctx.faults.SetLatency(k);
  return Ok();
}

json::object RuleJson(const FaultRule& r) {
  return {{"kind", std::string(FaultKindName(r.kind))},
          {"method", r.scope.method},
          {"path_prefix", r.scope.path_prefix},
          {"next", r.next_n},
          {"share", r.share},
          {"status", r.status},
          {"retry_after", r.retry_after_seconds},
          {"limit", r.rate_limit_per_hour},
          {"valid_json", r.valid_json},
          {"body", r.body},
          {"delay_ms", r.delay_ms}};
}

EmulatorResponse Faults(const ServerContext& ctx, const EmulatorRequest& req) {
  if (req.method == "GET") {
    json::array rules;
    for (const auto& r : ctx.faults.rules()) rules.push_back(RuleJson(r));
    return Answer(200, json::object{{"rules", std::move(rules)}});
  }
  Body b(req.body);
  const auto kind_name = b.String("kind");
  FaultRule rule;
  rule.scope = ReadScope(b);
  rule.next_n = b.Int("next").value_or(0);
  rule.share = b.Number("share").value_or(0.0);
  rule.status = static_cast<int>(b.Int("status").value_or(503));
  rule.retry_after_seconds = b.Int("retry_after").value_or(1);
  rule.rate_limit_per_hour = b.Int("limit").value_or(100);
  rule.valid_json = b.Bool("valid_json").value_or(true);
  rule.body = b.String("body").value_or("");
  rule.delay_ms = b.Int("delay_ms").value_or(0);
  if (!b.error().empty()) return Fail(400, b.error());
  if (!kind_name) return Fail(400, "\"kind\" is required");
  auto kind = ParseFaultKind(*kind_name);
  if (!kind.ok()) return Fail(400, kind.status().message());
  rule.kind = *kind;
  if (rule.next_n <= 0 && (rule.share <= 0.0 || rule.share > 1.0)) {
    return Fail(400, "give \"next\" (> 0) or \"share\" (0 < share <= 1)");
  }
  if (rule.kind == FaultKind::kServerError && rule.status != 500 && rule.status != 502 &&
      rule.status != 503) {
    return Fail(400, "\"status\" must be 500, 502 or 503");
  }
  if (rule.kind == FaultKind::kAnswer && (rule.status < 100 || rule.status > 599)) {
    return Fail(400, "\"status\" must be an HTTP status (100 to 599)");
  }
  if (rule.delay_ms < 0) return Fail(400, "\"delay_ms\" must not be negative");
  ctx.faults.AddRule(rule);
  return Ok();
}

EmulatorResponse Acl(const ServerContext& ctx, const EmulatorRequest& req) {
  Body b(req.body);
  AclKnob acl;
  acl.hide_every = b.Int("hide_every").value_or(0);
  acl.table = b.String("table").value_or("");
  if (!b.error().empty()) return Fail(400, b.error());
  if (acl.hide_every < 0) return Fail(400, "\"hide_every\" must be >= 0");
  ctx.faults.SetAcl(acl);
  return Ok();
}

EmulatorResponse BatchKnob(const ServerContext& ctx, const EmulatorRequest& req) {
  Body b(req.body);
  const auto limit = b.Int("service_limit");
  if (!b.error().empty()) return Fail(400, b.error());
  ctx.faults.SetBatchServiceLimit(limit.value_or(-1));
  return Ok();
}

EmulatorResponse OAuth(const ServerContext& ctx, const EmulatorRequest& req) {
  Body b(req.body);
  const auto access = b.Int("access_seconds");
  const auto refresh = b.Int("refresh_seconds");
  const auto revoke = b.Bool("revoke_all");
  if (!b.error().empty()) return Fail(400, b.error());
  if ((access && *access <= 0) || (refresh && *refresh <= 0)) {
    return Fail(400, "token lifetimes must be positive");
  }
  if (access || refresh) {
    ctx.oauth.SetLifetimes(access.value_or(ctx.oauth.access_lifetime_seconds()),
                           refresh.value_or(100LL * 24 * 3600));
  }
  if (revoke.value_or(false)) ctx.oauth.RevokeAll();
  return Ok();
}

json::object RowGeneratorJson(const RowGenerator& w) {
  const RowGeneratorStats s = w.stats();
  return {{"running", w.running()},
          {"inserted", s.inserted},
          {"updated", s.updated},
          {"late", s.late},
          {"failed", s.failed}};
}

EmulatorResponse WriterRoute(const ServerContext& ctx, const EmulatorRequest& req,
                             std::string_view action) {
  if (action == "start") {
    Body b(req.body);
    RowGeneratorOptions o;
    o.tables = b.Strings("tables");
    o.rows_per_second = b.Number("rows_per_second").value_or(o.rows_per_second);
    o.update_share = b.Number("update_share").value_or(o.update_share);
    o.burst_rows = b.Int("burst_rows").value_or(0);
    o.burst_interval_ms = b.Int("burst_interval_ms").value_or(o.burst_interval_ms);
    o.late_share = b.Number("late_share").value_or(0.0);
    o.late_seconds = b.Int("late_seconds").value_or(o.late_seconds);
    o.seed = static_cast<uint64_t>(b.Int("seed").value_or(7));
    if (!b.error().empty()) return Fail(400, b.error());
    const Status st = ctx.row_generator.Start(o);
    if (!st.ok())
      return Fail(st.code() == StatusCode::kFailedPrecondition ? 409 : 400, st.message());
    return Answer(200, RowGeneratorJson(ctx.row_generator));
  }
  if (action == "stop") {
    ctx.row_generator.Stop();
    return Answer(200, RowGeneratorJson(ctx.row_generator));
  }
  if (action.empty() && req.method == "GET")
    return Answer(200, RowGeneratorJson(ctx.row_generator));
  return Fail(404, "unknown writer action; use /_emulator/writer/start or /stop");
}

EmulatorResponse JournalRoute(const ServerContext& ctx, const EmulatorRequest& req) {
  const auto params = ParseUrlParams(req.query);
  uint64_t since = 0;
  if (const UrlParam* p = FindParam(params, "since")) {
    try {
      since = std::stoull(p->value);
    } catch (...) {
      return Fail(400, "\"since\" must be a sequence number");
    }
  }
  json::array entries;
  for (const auto& e : ctx.journal.Since(since)) {
    entries.push_back(json::object{{"seq", e.seq},
                                   {"time", FormatIso8601Millis(e.time_ms)},
                                   {"time_ms", e.time_ms},
                                   {"method", e.method},
                                   {"target", e.target},
                                   {"auth", e.auth},
                                   {"user", e.user},
                                   {"status", e.status},
                                   {"fault", e.fault}});
  }
  return Answer(200, json::object{{"entries", std::move(entries)}});
}

EmulatorResponse Snapshot(const ServerContext& ctx, std::string_view table) {
  auto rows = ctx.store.Snapshot(table);
  if (!rows.ok()) return Fail(404, rows.status().message());
  auto schema = ctx.store.Schema(table);
  RenderOptions ro;
  ro.exclude_reference_link = true;
  std::string body = "{\"table\":";
  AppendJsonString(table, &body);
  body += ",\"count\":" + std::to_string(rows->size()) + ",\"result\":[";
  std::vector<size_t> all(schema->size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  bool first = true;
  for (const auto& row : *rows) {
    if (!first) body += ',';
    first = false;
    AppendRowJson(*schema, *row, all, ro, nullptr, &body);
  }
  body += "]}";
  EmulatorResponse r;
  r.headers.push_back({"Content-Type", "application/json;charset=UTF-8"});
  r.body = std::move(body);
  return r;
}

EmulatorResponse Tables(const ServerContext& ctx, const EmulatorRequest& req) {
  if (req.method == "GET") {
    json::object out;
    for (const auto& name : ctx.store.TableNames()) out[name] = ctx.store.Count(name);
    return Answer(200, json::object{{"tables", std::move(out)}});
  }
  Body b(req.body);
  const auto table = b.String("table");
  const auto rows = b.Int("rows");
  const auto seed = b.Int("seed");
  if (!b.error().empty()) return Fail(400, b.error());
  if (!table) return Fail(400, "\"table\" is required");
  Status st = ctx.store.CreateTable(*table);
  if (st.ok() && rows.value_or(0) > 0) {
    GenOptions g;
    g.rows = static_cast<size_t>(*rows);
    g.seed = static_cast<uint64_t>(seed.value_or(1));
    st = Populate(ctx.store, *table, g);
  }
  if (!st.ok()) return Fail(400, st.message());
  return Ok({{"count", ctx.store.Count(*table)}});
}

// Deletions that bypass the Table API: the Table Cleaner (no audit trail), an undelete from
// sys_audit_delete, and the audit flags of a table (docs/testbed.md).
EmulatorResponse Cleaner(const ServerContext& ctx, const EmulatorRequest& req) {
  Body b(req.body);
  const auto table = b.String("table");
  const std::vector<std::string> ids = b.Strings("sys_ids");
  if (!b.error().empty()) return Fail(400, b.error());
  if (!table) return Fail(400, "\"table\" is required");
  if (!ctx.store.TableExists(*table)) return Fail(404, "no table " + *table);
  int64_t deleted = 0;
  for (const std::string& id : ids) {
    if (ctx.store.CleanerDelete(*table, id).ok()) ++deleted;
  }
  return Ok({{"deleted", deleted}});
}

EmulatorResponse Undelete(const ServerContext& ctx, const EmulatorRequest& req) {
  Body b(req.body);
  const auto table = b.String("table");
  const auto sys_id = b.String("sys_id");
  const auto user = b.String("user");
  if (!b.error().empty()) return Fail(400, b.error());
  if (!table || !sys_id) return Fail(400, "\"table\" and \"sys_id\" are required");
  WriteOptions by;
  if (user) by.user = *user;
  const Status st = ctx.store.Undelete(*table, *sys_id, by);
  if (st.code() == StatusCode::kNotFound) return Fail(404, st.message());
  if (!st.ok()) return Fail(409, st.message());
  return Ok({{"restored", *sys_id}});
}

EmulatorResponse AuditKnob(const ServerContext& ctx, const EmulatorRequest& req) {
  Body b(req.body);
  const auto table = b.String("table");
  const auto audited = b.Bool("audited");
  const auto no_audit_delete = b.Bool("no_audit_delete");
  if (!b.error().empty()) return Fail(400, b.error());
  if (!table) return Fail(400, "\"table\" is required");
  ctx.store.SetDeleteAudit(*table, audited.value_or(true), no_audit_delete.value_or(false));
  return Ok();
}

}  // namespace

EmulatorResponse HandleControl(const ServerContext& ctx, const EmulatorRequest& req) {
  std::string_view path = req.path;
  path.remove_prefix(std::string_view("/_emulator/").size());
  const bool get = req.method == "GET";
  const bool post = req.method == "POST";
  if (path == "health" && get) return Answer(200, json::object{{"status", "ok"}});
  if (path == "clock" && (get || post)) return ClockRoute(ctx, req);
  if (path == "latency" && post) return Latency(ctx, req);
  if (path == "faults" && (get || post)) return Faults(ctx, req);
  if (path == "acl" && post) return Acl(ctx, req);
  if (path == "batch" && post) return BatchKnob(ctx, req);
  if (path == "oauth" && post) return OAuth(ctx, req);
  if (path == "tables" && (get || post)) return Tables(ctx, req);
  if (path == "cleaner" && post) return Cleaner(ctx, req);
  if (path == "undelete" && post) return Undelete(ctx, req);
  if (path == "audit" && post) return AuditKnob(ctx, req);
  if (path == "journal" && get) return JournalRoute(ctx, req);
  if (path == "writer" && get) return WriterRoute(ctx, req, "");
  if (path.rfind("writer/", 0) == 0 && post) return WriterRoute(ctx, req, path.substr(7));
  if (path.rfind("snapshot/", 0) == 0 && get) return Snapshot(ctx, path.substr(9));
  if (path == "reset" && post) {
    ctx.faults.Clear();
    ctx.journal.Clear();
    return Ok();
  }
  return Fail(404, "no control route " + req.method + " " + req.path + " (see docs/testbed.md)");
}

}  // namespace snowcar::emulator
