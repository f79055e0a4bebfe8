// SPDX-License-Identifier: Apache-2.0
// The sink's start-up check of the integration user's rights on the instance's metadata
// tables, like the source's startup probe of its tables.
//
// Under snow.sink.unknown.field.behavior other than passthrough, every command needs the
// table's columns (field_catalog.h), read from sys_db_object and sys_dictionary. A user that
// may not read them fails every command the same way: that is about the instance, not the
// record. The field catalog therefore holds such a command (the lane retries it, nothing is
// dead-lettered), and this probe says why in health: component `sink.rights`, not ok and
// naming the missing right, until a probe reads both tables. It asks again every
// `retry` while a right is missing, so a granted role is seen without a restart.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "limited_client.h"
#include "snowcar/sink/sink_settings.h"

namespace snowcar::api {
class HealthRegistry;
}

namespace snowcar::sink {

// The health component the probe reports.
inline constexpr std::string_view kRightsComponent = "sink.rights";

// True when `settings` make the sink read sys_db_object and sys_dictionary.
bool NeedsRightsProbe(const SinkSettings& settings);

// What to tell an operator when the instance refuses to let the user read `table`
// (sys_db_object or sys_dictionary) under snow.sink.unknown.field.behavior=`behavior`.
std::string MissingRightMessage(std::string_view table, UnknownFieldBehavior behavior);

class RightsProbe : public std::enable_shared_from_this<RightsProbe> {
 public:
  struct Options {
    std::chrono::milliseconds retry{30000};  // between probes while a right is missing
  };

  // Sends the first probe at once; reports to `health` (may be null). `client` must outlive
  // the probe's last answer (Stop() ends the retries; an answer in flight still arrives).
  static std::shared_ptr<RightsProbe> Start(LimitedClient& client,
                                            boost::asio::any_io_executor executor,
                                            api::HealthRegistry* health,
                                            const SinkSettings& settings, Options options);
  RightsProbe(LimitedClient& client, boost::asio::any_io_executor executor,
              api::HealthRegistry* health, const SinkSettings& settings, Options options);

  // No more probes; an answer in flight is dropped. Idempotent.
  void Stop();

 private:
  bool stopped();
  void Probe();
  void ProbeTable(size_t index);
  void Finish(bool granted, std::string detail);

  LimitedClient& client_;
  boost::asio::any_io_executor executor_;
  api::HealthRegistry* const health_;
  const UnknownFieldBehavior behavior_;
  const Options options_;
  std::mutex mu_;
  boost::asio::steady_timer timer_;  // GUARDED_BY(mu_)
  bool stopped_ = false;             // GUARDED_BY(mu_)
};

}  // namespace snowcar::sink
