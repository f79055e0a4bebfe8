// SPDX-License-Identifier: Apache-2.0
// After a successful write the sink remembers, in the state store, which row version it
// wrote and which command record wrote it, so the source of the same process can mark that
// version (or keep it out of its topic) when it reads it back (docs/semantics.md, "The sink's
// own versions").
//
// The version is exactly the one the instance's answer to the POST, PATCH or PUT named
// (sys_mod_count); an answer without it records nothing, since guessing could mark a version
// someone else wrote. So does an answer whose sys_updated_by names another user than
// snow.auth.username: a PATCH or PUT that changed nothing makes no new version, and its answer
// shows the version the row already had. The record is written before the command's offset is
// stored, so a command whose offset is committed always has its mark on disk.
#pragma once

#include <atomic>
#include <boost/json/object.hpp>
#include <cstdint>
#include <optional>
#include <string>

#include "snowcar/kafka/record.h"
#include "snowcar/sink/commands/command.h"
#include "snowcar/sink/commands/failure.h"
#include "snowcar/sink/sink_settings.h"
#include "snowcar/state/state_store.h"

namespace snowcar::config {
class Config;
}

namespace snowcar::sink {

// The command header whose value the origin carries as its request id (and the source as
// snow.origin.request.id): the producer's own id for the command, to match it with the source
// record that follows.
inline constexpr const char* kRequestIdHeader = "snow.request.id";

struct OriginSettings {
  std::string instance;  // the host of snow.url, as the source keys its state
  std::string user;      // snow.auth.username; empty when not known
  state::OriginPolicy policy;

  static OriginSettings From(const SinkSettings& sink);
};

// Reads the version an answer to a write names into `applied`: sys_mod_count (a whole number,
// as text or as a JSON number) and sys_updated_on (a string, or the "value" of a
// {"display_value","value"} object). Anything else leaves sys_mod_count unset.
void ReadWrittenVersion(const boost::json::object& row, Applied& applied);

class OriginRecorder {
 public:
  // `store` may be null (nothing is recorded).
  OriginRecorder(state::StateStore* store, OriginSettings settings, const SinkSettings& sink)
      : store_(store), settings_(std::move(settings)), sink_(sink) {}

  // After `record` was applied as `applied`. Failures are logged and counted, never fatal:
  // the write itself succeeded, and a missing mark only means the source emits the version
  // unmarked.
  void Record(const kafka::InRecord& record, const std::optional<Command>& command,
              const Applied& applied);

  int64_t recorded() const { return recorded_.load(std::memory_order_relaxed); }
  int64_t errors() const { return errors_.load(std::memory_order_relaxed); }
  // Answers whose version names another user as its author (a write that changed nothing).
  int64_t not_ours() const { return not_ours_.load(std::memory_order_relaxed); }

 private:
  state::StateStore* store_;
  const OriginSettings settings_;
  const SinkSettings& sink_;
  std::atomic<int64_t> recorded_{0};
  std::atomic<int64_t> errors_{0};
  std::atomic<int64_t> not_ours_{0};
};

}  // namespace snowcar::sink
