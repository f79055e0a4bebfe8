// SPDX-License-Identifier: Apache-2.0
// Shared by the observability tests of `snowcar run`: start the real binary on the shell-only
// example with overrides, ask its Unix socket, and fetch over TCP with curl.
#pragma once

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <chrono>
#include <csignal>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "snowcar/api/client.h"
#include "support/child_process.h"
#include "support/wait.h"

namespace snowcar::sidecartest {

using namespace std::chrono_literals;

inline std::string ShellOnlyConfig() {
  return std::string(SNOWCAR_SOURCE_DIR) + "/docs/examples/shell-only.properties";
}

// `snowcar run --config <config> --set k=v ...`, stderr captured.
inline std::unique_ptr<testsupport::ChildProcess> SpawnRun(const std::string& config,
                                                           const std::vector<std::string>& sets) {
  testsupport::ChildOptions opts;
  opts.args = {"run", "--config", config};
  for (const auto& s : sets) {
    opts.args.push_back("--set");
    opts.args.push_back(s);
  }
  opts.capture_stderr = true;
  auto child = testsupport::ChildProcess::Spawn(SNOWCAR_BINARY, opts);
  EXPECT_TRUE(child.ok()) << child.status().ToString();
  return child.ok() ? std::move(child).value() : nullptr;
}

// GET over the Unix socket: {status, body}; {0, error} when nothing answered.
inline std::pair<int, std::string> SocketGet(const std::string& socket, const std::string& target) {
  auto r = api::Client().Get(socket, target);
  if (!r.ok()) return {0, r.status().message()};
  return {r->status, r->body};
}

// The JSON of /v1/health's component, or null when absent or unreachable.
inline boost::json::value HealthComponent(const std::string& socket, const std::string& name) {
  auto [status, body] = SocketGet(socket, "/v1/health");
  if (status != 200) return nullptr;
  boost::system::error_code ec;
  auto v = boost::json::parse(body, ec);
  if (ec || !v.is_object()) return nullptr;
  const auto* components = v.as_object().if_contains("components");
  if (components == nullptr || !components->is_object()) return nullptr;
  const auto* c = components->as_object().if_contains(name);
  return c == nullptr ? boost::json::value(nullptr) : *c;
}

// curl over TCP: {status, body}; {0, ""} when curl could not connect.
inline std::pair<int, std::string> CurlTcp(const std::string& url,
                                           const std::string& method = "GET") {
  testsupport::ChildOptions opts;
  opts.args = {"-s", "-X", method, "-w", "\n%{http_code}", url};
  auto r = testsupport::RunToCompletion("curl", opts, 10s);
  if (!r.ok()) return {0, ""};
  const auto nl = r->out.rfind('\n');
  if (nl == std::string::npos) return {0, ""};
  return {std::atoi(r->out.c_str() + nl + 1), r->out.substr(0, nl)};
}

// SIGTERM, then the exit status (the test fails when it does not stop in time).
inline void StopCleanly(testsupport::ChildProcess& child) {
  ASSERT_TRUE(child.Signal(SIGTERM).ok());
  auto exit = child.Wait(30s);
  ASSERT_TRUE(exit.ok()) << exit.status().ToString();
  EXPECT_TRUE(exit->ok()) << exit->ToString() << "\n" << child.Stderr();
  EXPECT_TRUE(child.WaitStreamsDrained(10s));
}

}  // namespace snowcar::sidecartest
