// SPDX-License-Identifier: Apache-2.0
#include "testbed/emulator/batch_api.h"

#include <boost/json.hpp>
#include <chrono>

#include "snowcar/common/base64.h"
#include "testbed/emulator/responses.h"
#include "testbed/emulator/table_api.h"

namespace snowcar::emulator {
namespace json = boost::json;
namespace {

EmulatorResponse BadBatch(const ServerContext& ctx, const std::string& detail) {
  return ErrorResponse(400, "Exception while reading request", detail, ctx.clock);
}

std::string StringField(const json::object& obj, std::string_view key) {
  const json::value* v = obj.if_contains(key);
  if (v == nullptr) return {};
  if (v->is_string()) return std::string(v->get_string());
  if (v->is_int64()) return std::to_string(v->get_int64());
  return {};
}

// Runs one item; the item's own problems (bad base64, bad URL) are its answer, not the
// batch's.
EmulatorResponse RunItem(const ServerContext& ctx, const EmulatorRequest& outer,
                         const json::object& item, const std::string& user) {
  EmulatorRequest sub;
  sub.method = StringField(item, "method");
  sub.target = StringField(item, "url");
  sub.host = outer.host;
  const size_t q = sub.target.find('?');
  sub.path = sub.target.substr(0, q);
  if (q != std::string::npos) sub.query = sub.target.substr(q + 1);
  if (const json::value* hs = item.if_contains("headers"); hs != nullptr && hs->is_array()) {
    for (const auto& h : hs->get_array()) {
      if (!h.is_object()) continue;
      sub.headers.push_back(
          {StringField(h.get_object(), "name"), StringField(h.get_object(), "value")});
    }
  }
  if (const json::value* b = item.if_contains("body"); b != nullptr && b->is_string()) {
    auto decoded = Base64Decode(b->get_string());
    if (!decoded) return BadBatch(ctx, "body of request is not valid base64");
    sub.body = std::move(*decoded);
  }
  if (sub.method.empty() || sub.target.empty() || !IsTableApiPath(sub.path)) {
    return ErrorResponse(400, "Requested URI does not represent any resource", std::nullopt,
                         ctx.clock);
  }
  return HandleTableApi(ctx, sub, user, std::nullopt);
}

}  // namespace

EmulatorResponse HandleBatch(const ServerContext& ctx, const EmulatorRequest& req,
                             const std::string& user) {
  if (req.method != "POST") {
    return ErrorResponse(405, "Method not Supported", "use POST", ctx.clock);
  }
  json::error_code ec;
  json::value doc = json::parse(req.body, ec);
  if (ec || !doc.is_object()) return BadBatch(ctx, "batch body is not a JSON object");
  const json::object& root = doc.get_object();
  const json::value* items = root.if_contains("rest_requests");
  if (items == nullptr || !items->is_array()) {
    return BadBatch(ctx, "batch body has no rest_requests array");
  }

  const auto started = std::chrono::steady_clock::now();
  const int64_t limit = ctx.faults.batch_service_limit();
  json::array serviced;
  json::array unserviced;
  int64_t done = 0;
  for (const auto& v : items->get_array()) {
    if (!v.is_object()) return BadBatch(ctx, "every rest_requests item must be an object");
    const json::object& item = v.get_object();
    const std::string id = StringField(item, "id");
    const auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::steady_clock::now() - started)
                             .count();
    if ((limit >= 0 && done >= limit) || elapsed >= ctx.options.batch_time_limit_ms) {
      unserviced.emplace_back(id);
      continue;
    }
    const auto t0 = std::chrono::steady_clock::now();
    EmulatorResponse r = RunItem(ctx, req, item, user);
    JournalEntry entry;
    entry.time_ms = ctx.clock.NowMillis();
    entry.method = StringField(item, "method");
    entry.target = StringField(item, "url");
    entry.auth = "batch";
    entry.user = user;
    entry.status = r.status;
    ctx.journal.Add(std::move(entry));
    const auto ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0)
            .count();
    ++done;
    json::object out;
    out["id"] = id;
    out["body"] = Base64Encode(r.body);
    out["status_code"] = r.status;
    out["status_text"] = std::string(HttpReasonPhrase(r.status));
    json::array headers;
    const json::value* ex = item.if_contains("exclude_response_headers");
    if (ex == nullptr || !ex->is_bool() || !ex->get_bool()) {
      for (const auto& h : r.headers) {
        headers.push_back(json::object{{"name", h.name}, {"value", h.value}});
      }
    }
    out["headers"] = std::move(headers);
    out["execution_time"] = ms;
    serviced.push_back(std::move(out));
  }
  json::object body;
  body["batch_request_id"] = StringField(root, "batch_request_id");
  body["serviced_requests"] = std::move(serviced);
  body["unserviced_requests"] = std::move(unserviced);
  return JsonResponse(200, json::serialize(body), ctx.clock);
}

}  // namespace snowcar::emulator
