// SPDX-License-Identifier: Apache-2.0
// Where the checker's inputs come from: a topic read whole with a plain assigned librdkafka
// consumer (watermarks first), and the emulator's final tables and journal, and the schema
// registry's schemas, over HTTP. Nothing here talks to snowcar.
#pragma once

#include <boost/json.hpp>
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "checker/records.h"
#include "snowcar/common/status.h"

namespace snowcar::contract {

// Every record of `topic`, from each partition's low watermark to the high watermark read
// before consuming. `read_committed`: as a consumer with isolation.level=read_committed sees
// it (records of aborted transactions left out; read up to the last stable offset).
Result<TopicDump> ReadTopic(const std::string& bootstrap, const std::string& topic,
                            std::chrono::milliseconds timeout = std::chrono::seconds(30),
                            bool read_committed = false);

// Committed offsets of `group` on `topic` (partition -> offset; partitions without one absent).
Result<std::map<int32_t, int64_t>> GroupOffsets(const std::string& bootstrap,
                                                const std::string& group, const std::string& topic,
                                                int partitions);

// GET on a test double (no credentials): status and body.
struct HttpAnswer {
  long status = 0;
  std::string body;
};
Result<HttpAnswer> HttpGet(const std::string& url);

// The emulator's rows of `table` as stored now (/_emulator/snapshot/<table>).
Result<std::vector<boost::json::object>> EmulatorRows(const std::string& emulator_url,
                                                      const std::string& table);

struct JournalEntry {
  uint64_t seq = 0;
  std::string method;
  std::string target;
  int status = 0;
};
// The emulator's journal (/_emulator/journal). `complete` is false when its oldest entries were
// dropped (the first seq is not 1): then counts from it prove nothing.
struct Journal {
  std::vector<JournalEntry> entries;
  bool complete = true;
};
Result<Journal> EmulatorJournal(const std::string& emulator_url);

// Answered (2xx) writes per sys_id of `table` with `method` ("PATCH", "DELETE", ...).
std::map<std::string, int64_t> AcceptedWrites(const Journal& journal, const std::string& table,
                                              const std::string& method);

// The schema the registry holds under `id` (GET /schemas/ids/<id>), nullopt when unknown.
std::optional<std::string> RegistrySchema(const std::string& registry_url, int32_t id);

}  // namespace snowcar::contract
