// SPDX-License-Identifier: Apache-2.0
#include "procs.h"

#include <curl/curl.h>
#include <librdkafka/rdkafka.h>
#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include "snowcar/api/client.h"
#include "snowcar/source/rows/record_builder.h"
#include "support/kafka_client.h"
#include "support/wait.h"

namespace snowcar::fault {
namespace {

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "fault_driver: %s\n", what.c_str());
  std::exit(3);
}

size_t AppendBody(char* data, size_t size, size_t count, void* out) {
  static_cast<std::string*>(out)->append(data, size * count);
  return size * count;
}

std::unique_ptr<testsupport::ChildProcess> SpawnSnowcar(const std::vector<std::string>& args,
                                                        bool pipe_stdin, std::string* first) {
  testsupport::ChildOptions options;
  options.args = args;
  options.capture_stderr = true;
  options.pipe_stdin = pipe_stdin;
  auto child = testsupport::ChildProcess::Spawn(SnowcarBinary(), options);
  if (!child.ok()) Die("cannot start snowcar " + args.front() + ": " + child.status().ToString());
  auto line = (*child)->ReadLine(30s);
  if (!line.ok()) Die("snowcar " + args.front() + " printed nothing: " + line.status().ToString());
  *first = *line;
  return std::move(child).value();
}

}  // namespace

std::string SnowcarBinary() {
  // FAULT_DRIVER_SNOWCAR runs a copy, so a long run is immune to rebuilds under way.
  const char* over = std::getenv("FAULT_DRIVER_SNOWCAR");
  return over != nullptr && *over != '\0' ? over : SNOWCAR_BINARY;
}

std::string Unique(const std::string& prefix) { return testsupport::UniqueName(prefix); }

void PauseForFault(std::chrono::milliseconds ms) { std::this_thread::sleep_for(ms); }

// --- Emulator ------------------------------------------------------------------------------

Emulator::Emulator(const std::vector<std::string>& args) {
  std::vector<std::string> all = {"emulate", "--port", "0"};
  all.insert(all.end(), args.begin(), args.end());
  child_ = SpawnSnowcar(all, false, &url_);
}

Result<Emulator::Answer> Emulator::Http(const std::string& method, const std::string& path,
                                        const std::string& body) {
  CURL* curl = curl_easy_init();
  Answer answer;
  const std::string url = url_ + path;
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method.c_str());
  curl_easy_setopt(curl, CURLOPT_USERNAME, "admin");
  curl_easy_setopt(curl, CURLOPT_PASSWORD, "admin-emulator");
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, 20000L);
  curl_slist* headers = curl_slist_append(nullptr, "Content-Type: application/json");
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  if (!body.empty()) curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.c_str());
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, AppendBody);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &answer.body);
  const CURLcode rc = curl_easy_perform(curl);
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &answer.status);
  curl_slist_free_all(headers);
  curl_easy_cleanup(curl);
  if (rc != CURLE_OK) {
    return Status::Unavailable(method + " " + path + ": " + curl_easy_strerror(rc));
  }
  return answer;
}

Status Emulator::Control(const std::string& path, const std::string& json) {
  auto answer = Http("POST", "/_emulator/" + path, json);
  if (!answer.ok()) {
    // Say why: an emulator that died is a finding of its own.
    std::string why = answer.status().ToString();
    if (auto status = child_->Wait(0ms); status.ok()) {
      child_->WaitStreamsDrained(2s);
      const std::string err = child_->Stderr();
      why += "; the emulator exited (" + status->ToString() +
             "), stderr ends: " + err.substr(err.size() > 600 ? err.size() - 600 : 0);
    }
    return Status::Unavailable(why);
  }
  const Answer& a = *answer;
  if (a.status != 200) {
    return Status::Internal("/_emulator/" + path + " answered " + std::to_string(a.status) + ": " +
                            a.body);
  }
  return Status::Ok();
}

std::vector<boost::json::object> Emulator::Snapshot(const std::string& table) {
  std::vector<boost::json::object> out;
  auto a = Http("GET", "/_emulator/snapshot/" + table);
  if (!a.ok() || a->status != 200) Die("snapshot of " + table + " failed");
  boost::system::error_code ec;
  auto v = boost::json::parse(a->body, ec);
  if (ec || !v.is_object()) Die("snapshot of " + table + " is not JSON");
  for (const auto& row : v.as_object().at("result").as_array()) out.push_back(row.as_object());
  return out;
}

// --- Broker --------------------------------------------------------------------------------

Broker::Broker(const std::string& topics) {
  child_ = SpawnSnowcar({"broker", "--brokers", "1", "--topics", topics, "--control-stdin"}, true,
                        &bootstrap_);
}

Status Broker::Command(const std::string& line) {
  SNOWCAR_RETURN_IF_ERROR(child_->WriteStdin(line + "\n"));
  SNOWCAR_ASSIGN_OR_RETURN(std::string answer, child_->ReadLine(10s));
  if (answer.rfind("ok", 0) != 0) return Status::Internal("broker: " + line + ": " + answer);
  return Status::Ok();
}

// --- Sidecar -------------------------------------------------------------------------------

Sidecar::Sidecar(std::string dir, std::map<std::string, std::string> props)
    : dir_(std::move(dir)), props_(std::move(props)) {}

Sidecar::~Sidecar() {
  if (child_) Kill9();
}

bool Sidecar::Start(bool wait_ready) {
  const std::string path = dir_ + "/snowcar-" + std::to_string(++generation_) + ".properties";
  {
    std::ofstream out(path);
    for (const auto& [k, v] : props_) out << k << "=" << v << "\n";
  }
  testsupport::ChildOptions opts;
  opts.args = {"run", "--config", path};
  opts.capture_stderr = true;
  auto child = testsupport::ChildProcess::Spawn(SnowcarBinary(), opts);
  if (!child.ok()) {
    last_error_ = child.status().ToString();
    return false;
  }
  child_ = std::move(child).value();
  bool exited = false;
  const bool up = testsupport::WaitFor(
      [&] {
        auto r = api::Client().Get(socket(), "/v1/ready");
        if (r.ok() && (!wait_ready || r->status == 200)) return true;
        // A process that refused to start is not waited for (its status stays readable).
        exited = child_->Wait(0ms).ok();
        return exited;
      },
      30s, 20ms);
  if (!up || exited) {
    last_error_ = "sidecar did not come up; stderr:\n" + child_->Stderr();
    return false;
  }
  return true;
}

void Sidecar::Kill9() {
  if (!child_) return;
  (void)child_->Signal(SIGKILL);
  (void)child_->Wait(10s);
  child_->WaitStreamsDrained(5s);
  old_stderr_ += child_->Stderr();
  child_.reset();
}

testsupport::ExitStatus Sidecar::Terminate(std::chrono::milliseconds timeout) {
  testsupport::ExitStatus out;
  if (!child_) return out;
  (void)child_->Signal(SIGTERM);
  auto status = child_->Wait(timeout);
  if (status.ok()) out = *status;
  Kill9();  // reaps and keeps stderr whether or not it stopped in time
  return out;
}

Result<testsupport::ExitStatus> Sidecar::WaitExit(std::chrono::milliseconds timeout) {
  if (!child_) return Status::FailedPrecondition("not running");
  SNOWCAR_ASSIGN_OR_RETURN(testsupport::ExitStatus status, child_->Wait(timeout));
  child_->WaitStreamsDrained(5s);
  old_stderr_ += child_->Stderr();
  child_.reset();
  return status;
}

std::string Sidecar::GetText(const std::string& target) const {
  auto r = api::Client().Get(socket(), target);
  return r.ok() ? r->body : std::string();
}

boost::json::object Sidecar::Get(const std::string& target) const {
  boost::system::error_code ec;
  auto v = boost::json::parse(GetText(target), ec);
  return ec || !v.is_object() ? boost::json::object{} : v.as_object();
}

std::string Sidecar::Stderr() const { return old_stderr_ + (child_ ? child_->Stderr() : ""); }

// --- Kafka ---------------------------------------------------------------------------------

std::vector<SourceRecord> ReadSourceTopic(const std::string& bootstrap, const std::string& topic) {
  auto r = testsupport::ReadTopicWithKcat(bootstrap, topic, "%p\t%o\t%k\t%h\t%s\n", 60s);
  if (!r.ok()) Die("kcat: " + r.status().ToString());
  std::vector<SourceRecord> out;
  size_t begin = 0;
  const std::string& text = r->out;
  while (begin < text.size()) {
    size_t nl = text.find('\n', begin);
    if (nl == std::string::npos) nl = text.size();
    const std::string line = text.substr(begin, nl - begin);
    begin = nl + 1;
    // partition, offset, key and headers (name=value,...) never hold a tab; the JSON value
    // is the rest of the line.
    std::vector<std::string> parts;
    size_t from = 0;
    while (parts.size() < 4) {
      const size_t tab = line.find('\t', from);
      if (tab == std::string::npos) break;
      parts.push_back(line.substr(from, tab - from));
      from = tab + 1;
    }
    if (parts.size() < 4) continue;
    boost::system::error_code ec;
    auto v = boost::json::parse(line.substr(from), ec);
    if (ec || !v.is_object()) continue;
    const auto& o = v.as_object();
    SourceRecord rec;
    rec.partition = std::atoi(parts[0].c_str());
    rec.offset = std::atoll(parts[1].c_str());
    rec.key = parts[2];
    const std::string marker = std::string(source::kExtractedAtHeader) + "=";
    if (size_t at = parts[3].find(marker); at != std::string::npos) {
      const size_t end = parts[3].find(',', at);
      rec.extracted_at =
          parts[3].substr(at + marker.size(),
                          end == std::string::npos ? std::string::npos : end - at - marker.size());
    }
    auto field = [&](const char* name) {
      const auto* f = o.if_contains(name);
      return f && f->is_string() ? std::string(f->as_string()) : std::string();
    };
    rec.sys_id = field("sys_id");
    rec.mod = field("sys_mod_count");
    rec.updated = field("sys_updated_on");
    out.push_back(std::move(rec));
  }
  return out;
}

size_t CountDuplicates(const std::vector<SourceRecord>& records) {
  std::set<std::tuple<std::string, std::string, std::string>> seen;
  size_t dups = 0;
  for (const auto& r : records) {
    if (!seen.insert({r.sys_id, r.mod, r.updated}).second) ++dups;
  }
  return dups;
}

size_t CountBrokerCopies(const std::vector<SourceRecord>& records) {
  std::map<std::tuple<std::string, std::string, std::string>, std::string> first;
  size_t copies = 0;
  for (const auto& r : records) {
    auto [it, added] = first.insert({{r.sys_id, r.mod, r.updated}, r.extracted_at});
    if (!added && !r.extracted_at.empty() && it->second == r.extracted_at) ++copies;
  }
  return copies;
}

std::set<std::pair<std::string, std::string>> RowVersions(
    const std::vector<boost::json::object>& rows) {
  std::set<std::pair<std::string, std::string>> out;
  for (const auto& row : rows) {
    out.insert({std::string(row.at("sys_id").as_string()),
                std::string(row.at("sys_mod_count").as_string())});
  }
  return out;
}

size_t CountMissing(const std::set<std::pair<std::string, std::string>>& want,
                    const std::vector<SourceRecord>& records) {
  std::set<std::pair<std::string, std::string>> have;
  for (const auto& r : records) have.insert({r.sys_id, r.mod});
  size_t missing = 0;
  for (const auto& v : want) missing += have.count(v) ? 0 : 1;
  return missing;
}

std::vector<int64_t> CommittedOffsets(const std::string& bootstrap, const std::string& group,
                                      const std::string& topic, int partitions) {
  auto offsets = testsupport::CommittedOffsets(bootstrap, group, topic, partitions);
  return offsets.ok() ? *offsets : std::vector<int64_t>(partitions, -1);
}

Status CommitOffsets(const std::string& bootstrap, const std::string& group,
                     const std::string& topic, const std::vector<int64_t>& offsets) {
  return testsupport::CommitOffsets(bootstrap, group, topic, offsets);
}

}  // namespace snowcar::fault
