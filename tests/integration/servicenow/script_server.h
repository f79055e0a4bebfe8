// SPDX-License-Identifier: Apache-2.0
// A scripted HTTP/1.1 server on 127.0.0.1 for the client's tests: every answer comes from a
// handler the test writes, and every request is recorded with its headers and arrival time.
// It can also do what a real instance or proxy sometimes does: answer late, close the
// connection without answering, or close it halfway through the body. One thread per
// connection (blocking Beast), so a late answer holds its own connection only.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace snowcar::servicenow::testing {

struct SeenRequest {
  std::string method;
  std::string target;
  std::string body;
  std::map<std::string, std::string> headers;  // names lower-cased
  std::chrono::steady_clock::time_point arrived;
  std::string Header(const std::string& lower_name) const {
    auto it = headers.find(lower_name);
    return it == headers.end() ? std::string() : it->second;
  }
};

struct Reply {
  enum class Action { kAnswer, kCloseWithoutAnswer, kCloseMidBody };
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  int delay_ms = 0;  // server-side latency before answering
  Action action = Action::kAnswer;
};

Reply Json(int status, std::string body);

class ScriptServer {
 public:
  // `index` counts requests from 0 in arrival order.
  using Handler = std::function<Reply(const SeenRequest& request, int index)>;

  explicit ScriptServer(Handler handler);
  ~ScriptServer();  // Stop()

  // Binds 127.0.0.1 on a free port and starts accepting.
  void Start();
  void Stop();
  std::string base_url() const;

  std::vector<SeenRequest> requests() const;
  int max_concurrent() const { return max_concurrent_.load(); }
  void ResetMaxConcurrent() { max_concurrent_.store(active_.load()); }
  int connections() const { return connections_.load(); }

 private:
  void AcceptLoop();
  void Serve(int fd);

  Handler handler_;
  int listen_fd_ = -1;
  uint16_t port_ = 0;
  std::thread acceptor_;
  mutable std::mutex mu_;
  std::vector<SeenRequest> seen_;
  std::vector<std::thread> workers_;
  std::vector<int> open_fds_;
  std::atomic<bool> stopping_{false};
  std::atomic<int> active_{0};
  std::atomic<int> max_concurrent_{0};
  std::atomic<int> connections_{0};
};

}  // namespace snowcar::servicenow::testing
