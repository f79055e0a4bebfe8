// SPDX-License-Identifier: Apache-2.0
// The real processes a fault scenario drives: `snowcar emulate` (steered through its
// /_emulator control endpoint), `snowcar broker --control-stdin` (faults typed on its stdin)
// and `snowcar run` (the sidecar, queried on its Unix socket, killed or stopped on purpose).
#pragma once

#include <boost/json.hpp>
#include <chrono>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "snowcar/common/status.h"
#include "support/child_process.h"

namespace snowcar::fault {

using namespace std::chrono_literals;

// `snowcar emulate` as a child; control and Table API requests over HTTP (libcurl).
class Emulator {
 public:
  // `args` after "emulate --port 0"; dies (exits the driver) when it does not start.
  explicit Emulator(const std::vector<std::string>& args);
  const std::string& url() const { return url_; }
  // One request; the answer's status and body. Table API paths carry the default Basic login.
  struct Answer {
    long status = 0;
    std::string body;
  };
  Result<Answer> Http(const std::string& method, const std::string& path,
                      const std::string& body = {});
  // POST /_emulator/<path> with a JSON body; fails unless the answer is 200.
  Status Control(const std::string& path, const std::string& json);
  // Every row of `table` as stored now (/_emulator/snapshot).
  std::vector<boost::json::object> Snapshot(const std::string& table);

 private:
  std::unique_ptr<testsupport::ChildProcess> child_;
  std::string url_;
};

// `snowcar broker --control-stdin` as a child.
class Broker {
 public:
  explicit Broker(const std::string& topics);
  const std::string& bootstrap() const { return bootstrap_; }
  // Sends one control line ("down 1", "rtt 1 500", "errors Produce NOT_ENOUGH_REPLICAS 3")
  // and waits for its "ok" answer.
  Status Command(const std::string& line);

 private:
  std::unique_ptr<testsupport::ChildProcess> child_;
  std::string bootstrap_;
};

// `snowcar run` with a properties map written to a file in `dir`.
class Sidecar {
 public:
  Sidecar(std::string dir, std::map<std::string, std::string> props);
  ~Sidecar();
  std::map<std::string, std::string>& props() { return props_; }
  const std::string& socket() const { return props_.at("socket.path"); }

  // Starts the process and waits until its socket answers (and /v1/ready says 200 when
  // `wait_ready`). False when it did not come up (the reason is in last_error()).
  bool Start(bool wait_ready = true);
  bool running() const { return child_ != nullptr; }
  void Kill9();
  // SIGTERM and wait; the exit status (exit -1 when it did not stop in time).
  testsupport::ExitStatus Terminate(std::chrono::milliseconds timeout = 30s);
  // Waits for the process to exit on its own.
  Result<testsupport::ExitStatus> WaitExit(std::chrono::milliseconds timeout);
  // GET on the socket as JSON ({} when it cannot be read or is not JSON).
  boost::json::object Get(const std::string& target) const;
  // Raw GET body ("" on failure).
  std::string GetText(const std::string& target) const;
  // Everything the process printed on stderr so far (this run and the previous ones).
  std::string Stderr() const;
  const std::string& last_error() const { return last_error_; }

 private:
  std::string dir_;
  std::map<std::string, std::string> props_;
  std::unique_ptr<testsupport::ChildProcess> child_;
  std::string old_stderr_;
  std::string last_error_;
  int generation_ = 0;
};

// One source record as kcat printed it.
struct SourceRecord {
  int partition = 0;
  int64_t offset = -1;
  std::string key;
  // The snow.extracted_at header: when the source read the page. Two copies of a version
  // with the same value came from one produce call (the broker wrote a batch twice); a page
  // the source read again carries a later one.
  std::string extracted_at;
  std::string sys_id;
  std::string mod;
  std::string updated;
};
// Every record of `topic` from the beginning to the current end (kcat, no group).
std::vector<SourceRecord> ReadSourceTopic(const std::string& bootstrap, const std::string& topic);
// Records beyond the first copy of each (sys_id, sys_mod_count, sys_updated_on).
size_t CountDuplicates(const std::vector<SourceRecord>& records);
// Of those, the copies whose first copy has the same snow.extracted_at: one produce call
// written twice by the broker, not a version the source read and produced again.
size_t CountBrokerCopies(const std::vector<SourceRecord>& records);
// (sys_id, sys_mod_count) of every row in a snapshot.
std::set<std::pair<std::string, std::string>> RowVersions(
    const std::vector<boost::json::object>& rows);
// Versions in `want` that no record carries.
size_t CountMissing(const std::set<std::pair<std::string, std::string>>& want,
                    const std::vector<SourceRecord>& records);

// Committed offsets of `group` for partitions 0..n-1 (-1 when none), and committing them for
// another group (the mock makes a killed member's group wait a session timeout; a fresh group
// seeded with the same offsets resumes at once).
std::vector<int64_t> CommittedOffsets(const std::string& bootstrap, const std::string& group,
                                      const std::string& topic, int partitions);
Status CommitOffsets(const std::string& bootstrap, const std::string& group,
                     const std::string& topic, const std::vector<int64_t>& offsets);

// The snowcar binary and a fresh name for topics, groups and files.
std::string SnowcarBinary();
std::string Unique(const std::string& prefix);
// Sleeps: the point is to hit the process at an arbitrary moment of its work, it is never a
// way to wait for something to happen (that is testsupport::WaitFor).
void PauseForFault(std::chrono::milliseconds ms);

}  // namespace snowcar::fault
