// The sink's socket views: /v1/sink/partitions (one entry per lane) and
// /v1/sink/correlation/{table}/{field}/{value} (the correlation cache as the sink uses it).
#include <boost/json.hpp>

#include "sink_direction.h"
#include "snowcar/api/router.h"
#include "snowcar/state/state_store.h"

namespace snowcar::sink {
namespace {

boost::json::value OffsetValue(int64_t offset) {
  if (offset < 0) return nullptr;
  return offset;
}

boost::json::object LaneJson(const LaneStatus& s) {
  boost::json::object o;
  o["topic"] = s.tp.topic;
  o["partition"] = s.tp.partition;
  o["state"] = LaneStateName(s.state);
  o["committed_offset"] = OffsetValue(s.committed_offset);
  o["stored_offset"] = OffsetValue(s.stored_offset);
  o["in_flight_offset"] = s.in_flight_offset ? boost::json::value(*s.in_flight_offset) : nullptr;
  o["queue_depth"] = static_cast<int64_t>(s.queue_depth);
  o["completed"] = s.completed;
  o["retries"] = s.retries;
  o["backoff_ms"] = s.backoff_ms;
  o["paused"] = s.paused;
  if (s.last_error.empty()) {
    o["last_error"] = nullptr;
  } else {
    boost::json::object e;
    e["class"] = s.last_error_class;
    e["message"] = s.last_error;
    o["last_error"] = std::move(e);
  }
  return o;
}

}  // namespace

Status SinkDirection::RegisterRoutes(api::Router& router) {
  SNOWCAR_RETURN_IF_ERROR(router.Add(api::Route{
      "GET", "/v1/sink/partitions",
      "the sink's lanes: per partition its state, committed/stored/in-flight offsets, queue, "
      "retries, last error, paused",
      false, [this](const api::Request&) {
        boost::json::array lanes;
        if (loop_) {
          for (const auto& s : loop_->lanes().Snapshot()) lanes.push_back(LaneJson(s));
        }
        boost::json::object root;
        root["subscribed"] = Started();
        root["in_flight"] = limit_.in_flight();
        root["in_flight_max"] = limit_.max_observed();
        root["max_in_flight"] = limit_.max();
        root["partitions"] = std::move(lanes);
        return api::Response::Json(200, root);
      }}));
  return router.Add(
      api::Route{"GET", "/v1/sink/correlation/{table}/{field}/{value}",
                 "the sys_id the sink has cached for a correlation value (404: none)", false,
                 [this](const api::Request& request) {
                   const std::string& table = request.Capture("table");
                   const std::string& field = request.Capture("field");
                   const std::string& value = request.Capture("value");
                   if (!IsValidTableName(table)) {
                     return api::Response::Error(
                         400, "not a table name: '" + table.substr(0, 100) + "'", request.path);
                   }
                   if (context_.store == nullptr) {
                     return api::Response::Error(503, "the state store is not open", request.path);
                   }
                   auto sys_id = context_.store->GetCorrelation(table, field, value);
                   if (!sys_id.ok())
                     return api::Response::Error(500, sys_id.status().message(), request.path);
                   if (!sys_id->has_value()) {
                     return api::Response::Error(404,
                                                 "no correlation cached for " + table + "." +
                                                     field + " = '" + value.substr(0, 200) + "'",
                                                 request.path);
                   }
                   boost::json::object root;
                   root["table"] = table;
                   root["field"] = field;
                   root["value"] = value;
                   root["sys_id"] = **sys_id;
                   root["correlation_field"] = settings_.correlation_field;
                   return api::Response::Json(200, root);
                 }});
}

}  // namespace snowcar::sink
