// SPDX-License-Identifier: Apache-2.0
// GET /v1/health and GET /v1/ready.
#include <boost/json/object.hpp>

#include "snowcar/api/routes.h"

namespace snowcar::api {

Status RegisterCoreRoutes(ApiRouter& router, const Readiness& readiness,
                          const HealthRegistry& health) {
  // Liveness: answers 200 as long as the process serves requests. A component that is not
  // ok turns the overall status to "degraded" but not the HTTP status: restarting the pod
  // does not cure a ServiceNow outage, and the components say what is wrong.
  SNOWCAR_RETURN_IF_ERROR(
      router.Add(Route{"GET", "/v1/health", "liveness, with the health each component reported",
                       false, [&health](const ApiRequest&) {
                         boost::json::object components;
                         bool all_ok = true;
                         for (const auto& [name, c] : health.Snapshot()) {
                           boost::json::object entry;
                           entry["ok"] = c.ok;
                           entry["detail"] = c.detail;
                           components[name] = std::move(entry);
                           all_ok = all_ok && c.ok;
                         }
                         boost::json::object root;
                         root["status"] = all_ok ? "ok" : "degraded";
                         root["components"] = std::move(components);
                         return ApiResponse::Json(200, root);
                       }}));
  SNOWCAR_RETURN_IF_ERROR(router.Add(
      Route{"GET", "/v1/ready", "200 once start-up finished, 503 with the reason before", false,
            [&readiness](const ApiRequest& request) {
              if (!readiness.ready()) {
                return ApiResponse::Error(503, "not ready: " + readiness.reason(), request.path);
              }
              boost::json::object root;
              root["ready"] = true;
              return ApiResponse::Json(200, root);
            }}));
  return Status::Ok();
}

}  // namespace snowcar::api
