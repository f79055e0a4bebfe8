// SPDX-License-Identifier: Apache-2.0
// The registry double's HTTP side: auth, the test knob (docs/testbed.md), and routing REST paths
// onto RegistryStore (registry_store.h). The listener is the emulator's (same threads, keep-alive).
#include "snowcar/testbed/registry/registry_server.h"

#include <boost/json.hpp>
#include <charconv>
#include <chrono>
#include <optional>
#include <thread>
#include <vector>

#include "registry_store.h"
#include "snowcar/common/base64.h"
#include "snowcar/common/mutex.h"
#include "testbed/emulator/http_listener.h"
#include "testbed/emulator/url_params.h"

namespace snowcar::registry {
namespace {

namespace json = boost::json;
using emulator::EmulatorRequest;
using emulator::EmulatorResponse;

constexpr uint64_t kMaxBody = 4 << 20;

std::vector<std::string> Segments(std::string_view path) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < path.size()) {
    if (path[start] == '/') {
      ++start;
      continue;
    }
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    out.push_back(emulator::DecodeOrVerbatim(path.substr(start, end - start), false));
    start = end;
  }
  return out;
}

// A query parameter's raw value ("" when absent).
std::string QueryParam(std::string_view query, std::string_view name) {
  size_t start = 0;
  while (start < query.size()) {
    size_t end = query.find('&', start);
    if (end == std::string_view::npos) end = query.size();
    std::string_view item = query.substr(start, end - start);
    const size_t eq = item.find('=');
    if (item.substr(0, eq) == name) {
      return eq == std::string_view::npos ? "true"
                                          : emulator::DecodeOrVerbatim(item.substr(eq + 1), false);
    }
    start = end + 1;
  }
  return "";
}

EmulatorResponse ToResponse(const Answer& answer) {
  EmulatorResponse r;
  r.status = answer.status;
  r.body = json::serialize(answer.body);
  r.SetHeader("Content-Type", "application/vnd.schemaregistry.v1+json");
  return r;
}

}  // namespace

struct RegistryServer::Impl {
  explicit Impl(RegistryServerOptions o)
      : options(std::move(o)),
        listener([this](EmulatorRequest& req) { return Handle(req); }, options.threads, kMaxBody) {}

  EmulatorResponse Handle(EmulatorRequest& req);
  Answer Route(EmulatorRequest& req);

  // The injected answer of POST /_registry/fail.
  struct Failure {
    int status = 503;
    int error_code = 50301;
    std::string message = "failure injected by the test double";
    std::optional<std::string> body;  // verbatim instead of {"error_code", "message"}
    int delay_ms = 0;                 // how long the answer waits
  };
  EmulatorResponse SetFailure(const EmulatorRequest& req);
  std::optional<Failure> TakeFailure();

  RegistryServerOptions options;
  RegistryStore store;
  Mutex fail_mu;
  // -1: every request until the next POST /_registry/fail.
  int fail_count SNOWCAR_GUARDED_BY(fail_mu) = 0;
  Failure failure SNOWCAR_GUARDED_BY(fail_mu);
  emulator::HttpListener listener;
};

EmulatorResponse RegistryServer::Impl::SetFailure(const EmulatorRequest& req) {
  const auto number = [&](std::string_view name, int64_t fallback,
                          int64_t low) -> std::optional<int64_t> {
    const std::string text = QueryParam(req.query, name);
    if (text.empty()) return fallback;
    int64_t v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size() || v < low) return std::nullopt;
    return v;
  };
  const auto count = number("count", 1, -1);
  const auto status = number("status", 503, 100);
  const auto delay = number("delay_ms", 0, 0);
  if (!count || *count > 1000000 || !status || *status > 599 || !delay || *delay > 600000) {
    return ToResponse(ErrorAnswer(400, 400,
                                  "_registry/fail: count is -1 (every request) to 1000000, "
                                  "status 100..599, delay_ms 0..600000"));
  }
  const auto code = number("error_code", *status * 100 + 1, 0);
  if (!code || *code > 99999999) {
    return ToResponse(ErrorAnswer(400, 400, "_registry/fail: error_code is 0..99999999"));
  }
  Failure f;
  f.status = static_cast<int>(*status);
  f.error_code = static_cast<int>(*code);
  if (std::string m = QueryParam(req.query, "message"); !m.empty()) f.message = std::move(m);
  if (req.query.find("body=") != std::string::npos) f.body = QueryParam(req.query, "body");
  f.delay_ms = static_cast<int>(*delay);
  MutexLock lock(fail_mu);
  failure = std::move(f);
  fail_count = static_cast<int>(*count);
  return ToResponse(Answer{200, json::object{{"failing", fail_count}}});
}

std::optional<RegistryServer::Impl::Failure> RegistryServer::Impl::TakeFailure() {
  MutexLock lock(fail_mu);
  if (fail_count == 0) return std::nullopt;
  if (fail_count > 0) --fail_count;
  return failure;
}

EmulatorResponse RegistryServer::Impl::Handle(EmulatorRequest& req) {
  if (req.path == "/_registry/fail" && req.method == "POST") return SetFailure(req);
  if (!options.user.empty()) {
    const std::string* auth = req.FindHeader("Authorization");
    bool ok = false;
    if (auth != nullptr && auth->starts_with("Basic ")) {
      auto decoded = Base64Decode(std::string_view(*auth).substr(6));
      ok = decoded.has_value() && *decoded == options.user + ":" + options.password;
    }
    if (!ok) {
      EmulatorResponse r = ToResponse(ErrorAnswer(401, 401, "Unauthorized"));
      r.SetHeader("WWW-Authenticate", "Basic realm=\"SchemaRegistry\"");
      return r;
    }
  }
  if (std::optional<Failure> f = TakeFailure()) {
    if (f->delay_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(f->delay_ms));
    EmulatorResponse r = ToResponse(ErrorAnswer(f->status, f->error_code, f->message));
    if (f->body) r.body = *f->body;
    return r;
  }
  return ToResponse(Route(req));
}

Answer RegistryServer::Impl::Route(EmulatorRequest& req) {
  const std::vector<std::string> s = Segments(req.path);
  const std::string& m = req.method;
  json::value body;
  if (!req.body.empty()) {
    boost::system::error_code ec;
    body = json::parse(req.body, ec);
    if (ec) return ErrorAnswer(400, 400, "Unrecognized request body: " + ec.message());
  }
  const size_t n = s.size();
  if (n >= 1 && s[0] == "subjects") {
    if (n == 1 && m == "GET") return store.Subjects();
    if (n == 2 && m == "POST") return store.Lookup(s[1], body);
    if (n == 2 && m == "DELETE") return store.DeleteSubject(s[1]);
    if (n == 3 && s[2] == "versions" && m == "GET") return store.Versions(s[1]);
    if (n == 3 && s[2] == "versions" && m == "POST") return store.Register(s[1], body);
    if (n == 4 && s[2] == "versions" && m == "GET") return store.Version(s[1], s[3]);
  }
  if (n == 3 && s[0] == "schemas" && s[1] == "ids" && m == "GET") {
    const bool number = !s[2].empty() && s[2].size() < 10 &&
                        s[2].find_first_not_of("0123456789") == std::string::npos;
    if (!number) return ErrorAnswer(404, 40403, "Schema " + s[2] + " not found");
    return store.SchemaById(std::stoll(s[2]));
  }
  if (n == 2 && s[0] == "schemas" && s[1] == "types" && m == "GET") {
    return Answer{200, json::array{"AVRO", "JSON", "PROTOBUF"}};
  }
  if (n == 5 && s[0] == "compatibility" && s[1] == "subjects" && s[3] == "versions" &&
      m == "POST") {
    return store.Compatibility(s[2], s[4], body, QueryParam(req.query, "verbose") == "true");
  }
  if (n >= 1 && n <= 2 && s[0] == "config") {
    const std::string subject = n == 2 ? s[1] : "";
    if (m == "GET") {
      return store.GetConfig(subject, QueryParam(req.query, "defaultToGlobal") == "true");
    }
    if (m == "PUT") return store.PutConfig(subject, body);
  }
  if (n == 0 && m == "GET") return Answer{200, json::object{}};
  return ErrorAnswer(
      404, 404, "HTTP 404 Not Found: " + m + " " + req.path + " is not served by this test double");
}

RegistryServer::RegistryServer(RegistryServerOptions options)
    : impl_(std::make_unique<Impl>(std::move(options))) {}
RegistryServer::~RegistryServer() { Stop(); }

Status RegistryServer::Start() {
  return impl_->listener.Start(impl_->options.host, impl_->options.port);
}
void RegistryServer::Stop() { impl_->listener.Stop(); }
uint16_t RegistryServer::port() const { return impl_->listener.port(); }
std::string RegistryServer::base_url() const {
  return "http://" + impl_->options.host + ":" + std::to_string(port());
}

}  // namespace snowcar::registry
