// SPDX-License-Identifier: Apache-2.0
// What the source's black-box tests share: an in-process emulator, the suite's embedded
// broker, the real `snowcar run` binary as a child process, its socket, and reading a topic
// back with kcat (no consumer group: the mock's group join costs seconds).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json.hpp>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "snowcar/api/client.h"
#include "snowcar/common/time.h"
#include "snowcar/testbed/emulator/data_gen.h"
#include "snowcar/testbed/emulator/emulator_server.h"
#include "support/broker_fixture.h"
#include "support/child_process.h"
#include "support/source_sidecar_config.h"
#include "support/temp_dir.h"
#include "support/wait.h"

namespace snowcar::source::it {

using namespace std::chrono_literals;

// The wall clock in epoch seconds, as the emulator stamps rows.
inline int64_t NowS() { return SystemClock::Instance().NowSeconds(); }

// One record as kcat printed it.
struct Consumed {
  int partition = 0;
  int64_t offset = 0;
  std::string key;
  int64_t timestamp_ms = 0;
  std::string headers;  // "k=v,k=v"
  boost::json::object value;
  std::string sys_id() const { return std::string(value.at("sys_id").as_string()); }
  std::string mod() const { return std::string(value.at("sys_mod_count").as_string()); }
  std::string updated() const { return std::string(value.at("sys_updated_on").as_string()); }
};

// One record as kcat printed it, tombstones included (ReadWithTombstones).
struct TopicRecord {
  int partition = 0;
  int64_t offset = 0;
  std::string key;
  std::string headers;               // "k=v,k=v"
  std::optional<std::string> value;  // nullopt: a tombstone
  bool Has(std::string_view header) const { return headers.find(header) != std::string::npos; }
  bool IsDelete() const { return value.has_value() && Has("snow.source.operation=DELETE"); }
  bool IsUpsert() const { return value.has_value() && Has("snow.source.operation=UPSERT"); }
};

class SourceTest : public testsupport::SharedBrokerTest<SourceTest> {
 protected:
  void SetUp() override {
    SharedBrokerTest::SetUp();
    emulator::EmulatorOptions options;
    emu_ = std::make_unique<emulator::EmulatorServer>(options);
    ASSERT_TRUE(emu_->Start().ok());
    ASSERT_TRUE(emu_->store().CreateTable("incident").ok());
    topic_ = testsupport::UniqueName("src-inc");
    props_ = testsupport::SourceSidecarConfig(dir_, emu_->base_url(), topic_, bootstrap());
    props_["snow.source.poll.interval.ms"] = "200";
    props_["snow.source.batch.size"] = "20";
  }
  void TearDown() override {
    child_.reset();
    if (emu_) emu_->Stop();
  }

  // Rows of `incident` stamped at the given seconds; returns their sys_ids.
  std::vector<std::string> LoadRows(const std::vector<int64_t>& seconds, int first = 0) {
    std::vector<emulator::Fields> rows;
    std::vector<std::string> ids;
    for (size_t i = 0; i < seconds.size(); ++i) {
      char id[33];
      std::snprintf(id, sizeof(id), "%08x%024x", static_cast<unsigned>(first + i) * 2654435761u,
                    static_cast<unsigned>(first + i));
      ids.push_back(id);
      rows.push_back({{"sys_id", id},
                      {"sys_updated_on", FormatSnowTimestamp(seconds[i])},
                      {"sys_created_on", FormatSnowTimestamp(seconds[i])},
                      {"short_description", "row " + std::to_string(first + i)}});
    }
    EXPECT_TRUE(emu_->store().Load("incident", rows).ok());
    return ids;
  }

  // `n` rows of `incident` with every typed column filled (an empty resolved_at), sys_ids
  // first_id, first_id+1, ... in 32 hex digits, updated at base+i; their sys_ids go to `ids`.
  static std::vector<emulator::Fields> TypedIncidentRows(int n, unsigned first_id, int64_t base,
                                                         std::vector<std::string>* ids) {
    std::vector<emulator::Fields> rows;
    for (int i = 0; i < n; ++i) {
      char id[33];
      std::snprintf(id, sizeof(id), "%032x", first_id + static_cast<unsigned>(i));
      ids->push_back(id);
      rows.push_back({{"sys_id", id},
                      {"sys_updated_on", FormatSnowTimestamp(base + i)},
                      {"sys_created_on", FormatSnowTimestamp(base)},
                      {"opened_at", FormatSnowTimestamp(base - 3600)},
                      {"short_description", "row " + std::to_string(i)},
                      {"priority", std::to_string(1 + i % 5)},
                      {"active", i % 2 == 0 ? "true" : "false"},
                      {"reassignment_count", std::to_string(i)},
                      {"resolved_at", ""}});
    }
    return rows;
  }

  // Runs a reader of this directory (`args`: the script, then its flags) under `python` until
  // it has printed `expect` records, each a JSON line with its "key"; the records by key. The
  // reader exits 2 on a record it could not decode, which fails the test.
  std::map<std::string, boost::json::object> ReadDecoded(const char* python,
                                                         std::vector<std::string> args,
                                                         size_t expect) {
    std::map<std::string, boost::json::object> out;
    std::string last_err;
    testsupport::WaitFor(
        [&] {
          testsupport::ChildOptions opts;
          opts.args = args;
          opts.capture_stderr = true;
          auto r = testsupport::RunToCompletion(python, opts, 60s);
          if (!r.ok()) return false;
          last_err = r->err;
          EXPECT_NE(r->status.code, 2) << "a record the reader could not decode: " << r->err;
          out.clear();
          size_t begin = 0;
          while (begin < r->out.size()) {
            size_t nl = r->out.find('\n', begin);
            if (nl == std::string::npos) nl = r->out.size();
            auto v = boost::json::parse(r->out.substr(begin, nl - begin));
            begin = nl + 1;
            out[std::string(v.at("key").as_string())] = v.as_object();
          }
          return out.size() >= expect;
        },
        60s, 200ms);
    EXPECT_GE(out.size(), expect) << last_err;
    return out;
  }

  std::string WriteProps() {
    std::string path = dir_.File("snowcar-" + std::to_string(++generation_) + ".properties");
    std::ofstream out(path);
    for (const auto& [k, v] : props_) out << k << "=" << v << "\n";
    return path;
  }

  // Starts `snowcar run`; waits for the socket to answer (and for readiness when asked).
  std::unique_ptr<testsupport::ChildProcess> Spawn(bool wait_ready = true) {
    testsupport::ChildOptions opts;
    opts.args = {"run", "--config", WriteProps()};
    opts.capture_stderr = true;
    auto child = testsupport::ChildProcess::Spawn(SNOWCAR_BINARY, opts);
    EXPECT_TRUE(child.ok()) << child.status().ToString();
    if (!child.ok()) return nullptr;
    auto c = std::move(child).value();
    const bool up = testsupport::WaitFor(
        [&] {
          auto r = api::Client().Get(props_.at("socket.path"), "/v1/ready");
          return r.ok() && (!wait_ready || r->status == 200);
        },
        20s, 20ms);
    EXPECT_TRUE(up) << "sidecar did not come up; stderr:\n" << c->Stderr();
    return c;
  }
  void Start(bool wait_ready = true) { child_ = Spawn(wait_ready); }
  // SIGTERM and a clean exit.
  void StopGracefully() {
    ASSERT_NE(child_, nullptr);
    ASSERT_TRUE(child_->Signal(SIGTERM).ok());
    auto status = child_->Wait(30s);
    ASSERT_TRUE(status.ok());
    EXPECT_TRUE(status->ok()) << status->ToString() << "\n" << child_->Stderr();
    last_stderr_ = child_->Stderr();
    last_stdout_ = child_->TakeStdout();
    child_.reset();
  }
  void Kill9() {
    ASSERT_NE(child_, nullptr);
    ASSERT_TRUE(child_->Signal(SIGKILL).ok());
    ASSERT_TRUE(child_->Wait(10s).ok());
    child_.reset();
  }

  api::HttpResult Get(const std::string& target) {
    auto r = api::Client().Get(props_.at("socket.path"), target);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : api::HttpResult{};
  }
  // /v1/source/tables/<alias> as JSON ({} when it cannot be read).
  boost::json::object Table(const std::string& alias = "inc") {
    auto r = api::Client().Get(props_.at("socket.path"), "/v1/source/tables/" + alias);
    if (!r.ok() || r->status != 200) return {};
    boost::system::error_code ec;
    auto v = boost::json::parse(r->body, ec);
    return ec || !v.is_object() ? boost::json::object{} : v.as_object();
  }
  int64_t Counter(const std::string& name, const std::string& alias = "inc") {
    auto t = Table(alias);
    return t.contains(name) ? t.at(name).as_int64() : -1;
  }
  std::string TableState(const std::string& alias = "inc") {
    auto t = Table(alias);
    return t.contains("state") ? std::string(t.at("state").as_string()) : "";
  }

  // Every record of topic_ now, tombstones included, in partition then offset order (kcat, from
  // the beginning to the end of each partition).
  std::vector<TopicRecord> ReadWithTombstones(std::chrono::seconds timeout) {
    auto r = testsupport::ReadTopicWithKcat(bootstrap(), topic_, "%p\t%o\t%k\t%h\t%s\n", timeout,
                                            {"-Z"});
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    std::vector<TopicRecord> out;
    if (!r.ok()) return out;
    for (const std::string& line : testsupport::Lines(r->out)) {
      std::vector<std::string> parts;
      size_t b = 0;
      for (int i = 0; i < 4; ++i) {
        const size_t tab = line.find('\t', b);
        if (tab == std::string::npos) break;
        parts.push_back(line.substr(b, tab - b));
        b = tab + 1;
      }
      if (parts.size() != 4) continue;
      TopicRecord rec{std::stoi(parts[0]), std::stoll(parts[1]), parts[2], parts[3], std::nullopt};
      std::string value = line.substr(b);
      if (value != "NULL") rec.value = std::move(value);
      out.push_back(std::move(rec));
    }
    std::stable_sort(out.begin(), out.end(), [](const TopicRecord& a, const TopicRecord& b) {
      return std::tie(a.partition, a.offset) < std::tie(b.partition, b.offset);
    });
    return out;
  }

  // Everything in `topic` now (kcat, from the beginning to the end of each partition).
  std::vector<Consumed> ReadTopic(const std::string& topic) {
    auto r = testsupport::ReadTopicWithKcat(bootstrap(), topic, "%p\t%o\t%k\t%T\t%h\t%s\n", 30s);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    std::vector<Consumed> out;
    if (!r.ok()) return out;
    size_t begin = 0;
    const std::string& text = r->out;
    while (begin < text.size()) {
      size_t nl = text.find('\n', begin);
      if (nl == std::string::npos) nl = text.size();
      std::string line = text.substr(begin, nl - begin);
      begin = nl + 1;
      std::vector<std::string> parts;
      size_t b = 0;
      for (int i = 0; i < 5; ++i) {
        size_t tab = line.find('\t', b);
        if (tab == std::string::npos) break;
        parts.push_back(line.substr(b, tab - b));
        b = tab + 1;
      }
      if (parts.size() != 5) continue;
      Consumed c;
      c.partition = std::stoi(parts[0]);
      c.offset = std::stoll(parts[1]);
      c.key = parts[2];
      c.timestamp_ms = std::stoll(parts[3]);
      c.headers = parts[4];
      boost::system::error_code ec;
      auto v = boost::json::parse(line.substr(b), ec);
      if (ec || !v.is_object()) continue;
      c.value = v.as_object();
      out.push_back(std::move(c));
    }
    return out;
  }
  // Waits until the topic holds at least `count` records; returns them.
  std::vector<Consumed> WaitForRecords(const std::string& topic, size_t count,
                                       std::chrono::milliseconds timeout = 20s) {
    std::vector<Consumed> got;
    testsupport::WaitFor(
        [&] {
          got = ReadTopic(topic);
          return got.size() >= count;
        },
        timeout, 100ms);
    return got;
  }

  // (sys_id, sys_mod_count) of every row of `incident` as stored now.
  std::set<std::pair<std::string, std::string>> FinalVersions(
      const std::string& table = "incident") {
    std::set<std::pair<std::string, std::string>> out;
    auto schema = emu_->store().Schema(table);
    auto rows = emu_->store().Snapshot(table);
    if (!schema || !rows.ok()) return out;
    const size_t id = *schema->IndexOf("sys_id");
    const size_t mod = *schema->IndexOf("sys_mod_count");
    for (const auto& row : *rows)
      out.insert({std::string(row->Get(id)), std::string(row->Get(mod))});
    return out;
  }
  static size_t Duplicates(const std::vector<Consumed>& records) {
    std::map<std::tuple<std::string, std::string, std::string>, int> seen;
    size_t dups = 0;
    for (const auto& r : records) {
      if (seen[{r.sys_id(), r.mod(), r.updated()}]++ > 0) ++dups;
    }
    return dups;
  }
  static std::set<std::pair<std::string, std::string>> Versions(const std::vector<Consumed>& rs) {
    std::set<std::pair<std::string, std::string>> out;
    for (const auto& r : rs) out.insert({r.sys_id(), r.mod()});
    return out;
  }
  // True once every current row version of `incident` is in `topic`.
  bool AllFinalVersionsIn(const std::string& topic, std::vector<Consumed>* records = nullptr) {
    auto got = ReadTopic(topic);
    auto have = Versions(got);
    for (const auto& v : FinalVersions()) {
      if (!have.count(v)) return false;
    }
    if (records) *records = std::move(got);
    return true;
  }

  testsupport::TempDir dir_{"snowcar-source-it"};
  std::unique_ptr<emulator::EmulatorServer> emu_;
  std::string topic_;
  std::map<std::string, std::string> props_;
  std::unique_ptr<testsupport::ChildProcess> child_;
  std::string last_stderr_;
  std::string last_stdout_;
  int generation_ = 0;
};

}  // namespace snowcar::source::it
