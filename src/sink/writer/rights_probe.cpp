// SPDX-License-Identifier: Apache-2.0
#include "rights_probe.h"

#include <array>
#include <utility>

#include "call_failure.h"
#include "snowcar/api/readiness.h"
#include "snowcar/common/log.h"

namespace snowcar::sink {
namespace {

// The tables the field catalog reads, each asked for one row of one field: the right to read
// the table is what is checked, not what it holds.
constexpr std::array<std::string_view, 2> kTables = {"sys_db_object", "sys_dictionary"};

std::string BehaviorName(UnknownFieldBehavior b) {
  switch (b) {
    case UnknownFieldBehavior::kFail:
      return "fail";
    case UnknownFieldBehavior::kDrop:
      return "drop";
    case UnknownFieldBehavior::kReport:
      return "report";
    case UnknownFieldBehavior::kPassthrough:
      return "passthrough";
  }
  return "?";
}

}  // namespace

bool NeedsRightsProbe(const SinkSettings& settings) {
  return settings.unknown_field != UnknownFieldBehavior::kPassthrough;
}

std::string MissingRightMessage(std::string_view table, UnknownFieldBehavior behavior) {
  return "the integration user may not read " + std::string(table) +
         ", which snow.sink.unknown.field.behavior=" + BehaviorName(behavior) +
         " needs to know each table's columns: grant it read access to sys_db_object and "
         "sys_dictionary (an ACL, or a role such as personalize_dictionary), or set "
         "snow.sink.unknown.field.behavior=passthrough; commands wait meanwhile, none is "
         "dead-lettered for it";
}

std::shared_ptr<RightsProbe> RightsProbe::Start(LimitedClient& client,
                                                boost::asio::any_io_executor executor,
                                                api::HealthRegistry* health,
                                                const SinkSettings& settings, Options options) {
  auto probe =
      std::make_shared<RightsProbe>(client, std::move(executor), health, settings, options);
  if (health != nullptr) {
    health->Report(std::string(kRightsComponent), true, "checking sys_db_object, sys_dictionary");
  }
  probe->Probe();
  return probe;
}

RightsProbe::RightsProbe(LimitedClient& client, boost::asio::any_io_executor executor,
                         api::HealthRegistry* health, const SinkSettings& settings, Options options)
    : client_(client),
      executor_(std::move(executor)),
      health_(health),
      behavior_(settings.unknown_field),
      options_(options),
      timer_(executor_) {}

void RightsProbe::Stop() {
  std::lock_guard lock(mu_);
  stopped_ = true;
  timer_.cancel();
}

bool RightsProbe::stopped() {
  std::lock_guard lock(mu_);
  return stopped_;
}

void RightsProbe::Probe() { ProbeTable(0); }

void RightsProbe::ProbeTable(size_t index) {
  if (index == kTables.size()) {
    return Finish(true, "sys_db_object and sys_dictionary are readable");
  }
  if (stopped()) return;
  const std::string table(kTables[index]);
  servicenow::InstanceRequest r;
  r.target = "/api/now/table/" + table + "?sysparm_fields=sys_id&sysparm_limit=1";
  auto self = shared_from_this();
  client_.Send(std::move(r), executor_, [self, index, table](const servicenow::CallResult& result) {
    if (self->stopped()) return;
    if (result.ok()) return self->ProbeTable(index + 1);
    if (result.klass == servicenow::OutcomeClass::kPermission) {
      return self->Finish(false, MissingRightMessage(table, self->behavior_) + " (HTTP " +
                                     std::to_string(result.http_status) + ": " +
                                     ResponseExcerpt(result) + ")");
    }
    // Anything else (an unreachable instance, refused credentials, throttling) is reported by
    // the `servicenow` component; ask again later.
    self->Finish(true, "not checked yet: reading " + table + " failed: " + result.message);
  });
}

void RightsProbe::Finish(bool granted, std::string detail) {
  const bool checked = granted && detail.find("not checked") == std::string::npos;
  if (health_ != nullptr) health_->Report(std::string(kRightsComponent), granted, detail);
  if (!granted) {
    SNOWCAR_LOG(kWarn, "sink.rights_missing", {{"detail", detail}});
  } else if (checked) {
    SNOWCAR_LOG(kDebug, "sink.rights_ok", {{"detail", detail}});
    return;
  }
  std::lock_guard lock(mu_);
  if (stopped_) return;
  timer_.expires_after(options_.retry);
  timer_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
    if (!ec) self->Probe();
  });
}

}  // namespace snowcar::sink
