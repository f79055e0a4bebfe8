// SPDX-License-Identifier: Apache-2.0
#include "snowcar/servicenow/instance_gate.h"

#include <algorithm>
#include <boost/asio/post.hpp>
#include <utility>

#include "snowcar/common/log.h"

namespace snowcar::servicenow {

InstanceGate::InstanceGate(boost::asio::any_io_executor executor, Prober prober, int64_t initial_ms,
                           int64_t max_ms)
    : prober_(std::move(prober)),
      initial_ms_(std::max<int64_t>(1, initial_ms)),
      max_ms_(std::max<int64_t>(std::max<int64_t>(1, initial_ms), max_ms)),
      timer_(std::move(executor)) {}

std::string InstanceGate::ProbeTarget(const std::string& request_target) {
  const std::string path = request_target.substr(0, request_target.find('?'));
  // /api/now/table/<t>[/<sys_id>] or /api/now/v<n>/table/<t>[/<sys_id>]
  const size_t table = path.find("/table/");
  if (path.rfind("/api/now/", 0) != 0 || table == std::string::npos) return path;
  const size_t name = table + 7;
  const size_t end = path.find('/', name);
  return path.substr(0, end) + "?sysparm_limit=1&sysparm_fields=sys_id";
}

void InstanceGate::Close(const std::string& reason, const std::string& request_target) {
  std::lock_guard lock(mu_);
  if (stopped_) return;
  reason_ = reason;
  if (!open_) return;
  open_ = false;
  ++closes_;
  probes_ = 0;
  wait_ms_ = initial_ms_;
  probe_target_ = ProbeTarget(request_target);
  SNOWCAR_LOG(kWarn, "snow.instance.paused",
              {{"reason", reason},
               {"probe", probe_target_},
               {"waiters", static_cast<int64_t>(waiters_.size())}});
  if (!probing_) ArmProbe();
}

void InstanceGate::Open() {
  std::vector<Waiter> woken;
  {
    std::lock_guard lock(mu_);
    if (open_) return;
    open_ = true;
    reason_.clear();
    woken.swap(waiters_);
    timer_.cancel();
    SNOWCAR_LOG(kInfo, "snow.instance.resumed",
                {{"probes", probes_}, {"waiters", static_cast<int64_t>(woken.size())}});
  }
  for (auto& w : woken) boost::asio::post(w.executor, std::move(w.resume));
}

bool InstanceGate::IsOpen() const {
  std::lock_guard lock(mu_);
  return open_;
}

void InstanceGate::WhenOpen(boost::asio::any_io_executor executor, std::function<void()> resume) {
  {
    std::lock_guard lock(mu_);
    if (stopped_) return;
    if (!open_) {
      waiters_.push_back(Waiter{std::move(executor), std::move(resume)});
      return;
    }
  }
  boost::asio::post(executor, std::move(resume));
}

InstanceGate::View InstanceGate::Read() const {
  std::lock_guard lock(mu_);
  return View{open_, reason_, closes_, probes_, waiters_.size()};
}

void InstanceGate::Stop() {
  std::lock_guard lock(mu_);
  stopped_ = true;
  waiters_.clear();
  timer_.cancel();
}

void InstanceGate::ArmProbe() {
  probing_ = true;
  timer_.expires_after(std::chrono::milliseconds(wait_ms_));
  wait_ms_ = std::min(wait_ms_ * 2, max_ms_);
  timer_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
    if (ec) {
      std::lock_guard lock(self->mu_);
      self->probing_ = false;
      // Cancelled by Open or Stop; a Close that came in between wants its probe.
      if (!self->open_ && !self->stopped_) self->ArmProbe();
      return;
    }
    self->Probe();
  });
}

void InstanceGate::Probe() {
  std::string target;
  {
    std::lock_guard lock(mu_);
    if (open_ || stopped_) {
      probing_ = false;
      return;
    }
    ++probes_;
    target = probe_target_;
  }
  prober_(target, [self = shared_from_this()](bool reached) {
    if (reached) self->Open();  // the client has opened it already when it saw the answer
    std::lock_guard lock(self->mu_);
    self->probing_ = false;
    if (!self->open_ && !self->stopped_) self->ArmProbe();
  });
}

}  // namespace snowcar::servicenow
