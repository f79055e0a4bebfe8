// SPDX-License-Identifier: Apache-2.0
// The connection table shared by both socket API listeners, and the life cycle of their
// sessions (http_session.h; reading and writing are in http_session_read/_write.cpp).
#include "http_server_core.h"

#include <algorithm>

#include "http_session.h"

namespace snowcar::api::internal {

HttpSession::HttpSession(GenericSocket socket, std::shared_ptr<HttpServerBase> server, uint64_t id,
                         SlotKind kind, Admission admission)
    : stream_(std::move(socket)),
      server_(std::move(server)),
      id_(id),
      kind_(kind),
      peer_(std::move(admission.peer)),
      refusal_(std::move(admission.refusal)),
      spare_deadline_(stream_.get_executor()) {}

HttpSession::~HttpSession() { server_->Forget(id_); }

void HttpSession::Start() {
  boost::asio::post(stream_.get_executor(), [self = shared_from_this()] { self->Read(); });
}

void HttpSession::PushOut() {
  boost::asio::post(stream_.get_executor(), [self = shared_from_this()] {
    if (self->answered_) return;
    self->pushed_out_ = true;
    self->stream_.cancel();  // the pending header read ends with operation_aborted
  });
}

void HttpSession::Close() {
  boost::asio::post(stream_.get_executor(), [self = shared_from_this()] {
    self->closing_ = true;
    self->CloseNow();
  });
}

HttpServerBase::HttpServerBase(ConnectionLimits limits, std::shared_ptr<const ApiRouter> router,
                               std::string log_prefix)
    : limits_(std::move(limits)), router_(std::move(router)), log_prefix_(std::move(log_prefix)) {}

HttpServerBase::~HttpServerBase() = default;

size_t HttpServerBase::open_connections() const {
  MutexLock lock(mu_);
  return sessions_.size();
}

bool HttpServerBase::IsProbePath(std::string_view target) const {
  const std::string_view path = TargetPath(target);
  return std::any_of(limits_.probe_paths.begin(), limits_.probe_paths.end(),
                     [&](const std::string& p) { return p == path; });
}

ApiResponse HttpServerBase::TooManyConnections() const {
  return ApiResponse::Error(503,
                            "too many open connections (limit " +
                                std::to_string(limits_.max_connections) + "); retry later",
                            "");
}

void HttpServerBase::Forget(uint64_t id) {
  MutexLock lock(mu_);
  auto it = sessions_.find(id);
  if (it == sessions_.end()) return;
  if (it->second.kind == SlotKind::kRegular) {
    --regular_;
  } else {
    waiting_spares_.erase(std::remove(waiting_spares_.begin(), waiting_spares_.end(), id),
                          waiting_spares_.end());
  }
  sessions_.erase(it);
}

// A spare connection got its request (or its answer): it no longer waits for one, so it is
// not a candidate to be pushed out.
void HttpServerBase::SpareAnswered(uint64_t id) {
  MutexLock lock(mu_);
  waiting_spares_.erase(std::remove(waiting_spares_.begin(), waiting_spares_.end(), id),
                        waiting_spares_.end());
}

bool HttpServerBase::StopSessions() {
  if (stopped_.exchange(true)) return false;
  std::vector<std::shared_ptr<HttpSession>> open;
  {
    MutexLock lock(mu_);
    for (auto& [id, entry] : sessions_) {
      if (auto s = entry.session.lock()) open.push_back(std::move(s));
    }
  }
  for (auto& s : open) s->Close();
  return true;
}

void HttpServerBase::StartSession(GenericSocket socket, Admission admission) {
  std::shared_ptr<HttpSession> session;
  std::shared_ptr<HttpSession> pushed_out;
  SlotKind kind = SlotKind::kRegular;
  {
    MutexLock lock(mu_);
    kind = regular_ < limits_.max_connections ? SlotKind::kRegular : SlotKind::kSpare;
    const uint64_t id = next_id_++;
    session = std::make_shared<HttpSession>(std::move(socket), shared_from_this(), id, kind,
                                            std::move(admission));
    sessions_.emplace(id, Entry{session, kind});
    if (kind == SlotKind::kRegular) {
      ++regular_;
    } else {
      if (waiting_spares_.size() >= std::max<size_t>(1, limits_.spare_connections)) {
        const uint64_t oldest = waiting_spares_.front();
        waiting_spares_.erase(waiting_spares_.begin());
        if (auto it = sessions_.find(oldest); it != sessions_.end()) {
          pushed_out = it->second.session.lock();
        }
      }
      waiting_spares_.push_back(id);
    }
  }
  if (kind == SlotKind::kSpare) {
    spare_since_log_.fetch_add(1);
    // At most one line per kLimitLogEvery, counting the connections since the last one: a
    // flood must not turn into a flood of log lines.
    const auto now = std::chrono::steady_clock::now().time_since_epoch().count();
    auto due = next_limit_log_.load();
    if (now >= due && next_limit_log_.compare_exchange_strong(
                          due, now + std::chrono::steady_clock::duration(kLimitLogEvery).count())) {
      SNOWCAR_LOG(kWarn, "api.connection_limit",
                  {{"listener", log_prefix_},
                   {"max_connections", limits_.max_connections},
                   {"connections_over_limit", spare_since_log_.exchange(0)},
                   {"note", "connections over the limit may only ask for the probe paths"}});
    }
  }
  if (pushed_out) pushed_out->PushOut();
  session->Start();
}

}  // namespace snowcar::api::internal
