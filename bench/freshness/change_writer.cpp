// SPDX-License-Identifier: Apache-2.0
#include "change_writer.h"

#include <curl/curl.h>

#include <algorithm>
#include <boost/json.hpp>
#include <cstdio>
#include <utility>

namespace snowcar::bench {
namespace {

using Clock = std::chrono::steady_clock;

size_t AppendBody(char* data, size_t size, size_t count, void* out) {
  static_cast<std::string*>(out)->append(data, size * count);
  return size * count;
}

// One kept-alive connection to the emulator with its default credentials: a writer thread
// reuses it for every change, as a client of an instance would, so a change costs one
// request and no handshake.
class Connection {
 public:
  Connection() : curl_(curl_easy_init()) {
    headers_ = curl_slist_append(headers_, "Content-Type: application/json");
    headers_ = curl_slist_append(headers_, "Accept: application/json");
  }
  ~Connection() {
    curl_slist_free_all(headers_);
    curl_easy_cleanup(curl_);
  }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // The HTTP status (0 when the transfer failed) and the answer's body in `body`.
  long Send(const char* method, const std::string& url, const std::string& request,
            std::string* body) {
    body->clear();
    curl_easy_setopt(curl_, CURLOPT_URL, url.c_str());
    curl_easy_setopt(curl_, CURLOPT_USERNAME, "admin");
    curl_easy_setopt(curl_, CURLOPT_PASSWORD, "admin-emulator");
    curl_easy_setopt(curl_, CURLOPT_HTTPHEADER, headers_);
    if (request.empty()) {
      curl_easy_setopt(curl_, CURLOPT_HTTPGET, 1L);
    } else {
      curl_easy_setopt(curl_, CURLOPT_POSTFIELDS, request.c_str());
      curl_easy_setopt(curl_, CURLOPT_POSTFIELDSIZE, static_cast<long>(request.size()));
    }
    // After the body: POSTFIELDS makes a POST, and the method named here replaces it.
    curl_easy_setopt(curl_, CURLOPT_CUSTOMREQUEST, method);
    curl_easy_setopt(curl_, CURLOPT_WRITEFUNCTION, AppendBody);
    curl_easy_setopt(curl_, CURLOPT_WRITEDATA, body);
    curl_easy_setopt(curl_, CURLOPT_TIMEOUT_MS, 30000L);
    if (curl_easy_perform(curl_) != CURLE_OK) return 0;
    long status = 0;
    curl_easy_getinfo(curl_, CURLINFO_RESPONSE_CODE, &status);
    return status;
  }

 private:
  CURL* curl_;
  curl_slist* headers_ = nullptr;
};

// The sys_ids of every row of `table`, in the order the instance lists them.
bool ReadPool(Connection& connection, const std::string& base, const std::string& table,
              std::deque<std::string>* pool) {
  std::string body;
  const long status = connection.Send(
      "GET", base + "/api/now/table/" + table + "?sysparm_fields=sys_id", "", &body);
  boost::system::error_code ec;
  const boost::json::value v = boost::json::parse(body, ec);
  if (status != 200 || ec || !v.is_object() || !v.as_object().contains("result")) {
    std::fprintf(stderr, "freshness: reading the rows of %s answered %ld\n", table.c_str(), status);
    return false;
  }
  for (const auto& row : v.as_object().at("result").as_array()) {
    pool->emplace_back(row.as_object().at("sys_id").as_string());
  }
  return true;
}

std::string SysIdOf(const std::string& body) {
  boost::system::error_code ec;
  const boost::json::value v = boost::json::parse(body, ec);
  if (ec || !v.is_object()) return {};
  const auto* result = v.as_object().if_contains("result");
  if (result == nullptr || !result->is_object()) return {};
  const auto* id = result->as_object().if_contains("sys_id");
  return (id != nullptr && id->is_string()) ? std::string(id->as_string()) : std::string();
}

}  // namespace

ChangeWriter::ChangeWriter(WriterOptions options) : options_(std::move(options)) {}

ChangeWriter::~ChangeWriter() { Stop(); }

bool ChangeWriter::Start() {
  Connection connection;
  pools_.resize(options_.tables.size());
  for (size_t t = 0; t < options_.tables.size(); ++t) {
    if (!ReadPool(connection, options_.base, options_.tables[t], &pools_[t])) return false;
    if (pools_[t].empty()) {
      std::fprintf(stderr, "freshness: table %s has no rows to change\n",
                   options_.tables[t].c_str());
      return false;
    }
  }
  const auto threads = static_cast<size_t>(std::max(1, options_.threads));
  made_.resize(threads);
  started_ = Clock::now();
  for (size_t i = 0; i < threads; ++i) threads_.emplace_back([this, i] { Run(i, started_); });
  return true;
}

void ChangeWriter::Stop() {
  if (threads_.empty()) return;
  stop_ = true;
  for (auto& t : threads_) t.join();
  threads_.clear();
  seconds_ = std::chrono::duration<double>(Clock::now() - started_).count();
  for (auto& made : made_) {
    changes_.insert(changes_.end(), std::make_move_iterator(made.begin()),
                    std::make_move_iterator(made.end()));
    made.clear();
  }
}

void ChangeWriter::Run(size_t thread_index, Clock::time_point start) {
  std::vector<size_t> mine;
  for (size_t t = thread_index; t < options_.tables.size(); t += made_.size()) {
    mine.push_back(t);
  }
  if (mine.empty()) return;
  // This thread's share of the rate: its tables' share of all tables.
  const double rate = static_cast<double>(options_.rate) * static_cast<double>(mine.size()) /
                      static_cast<double>(options_.tables.size());
  Connection connection;
  std::string body;
  for (uint64_t j = 0; !stop_; ++j) {
    const auto due = start + std::chrono::duration_cast<Clock::duration>(
                                 std::chrono::duration<double>(static_cast<double>(j) / rate));
    std::this_thread::sleep_until(due);
    if (stop_) break;
    const size_t t = mine[j % mine.size()];
    const std::string& table = options_.tables[t];
    const uint64_t seq = next_seq_.fetch_add(1);
    const std::string fields = "{\"u_freshness_seq\":\"" + std::to_string(seq) + "\"}";
    // Every create_percent-th change of a hundred creates a row; the rest change the row
    // changed longest ago, which then goes to the back: each row waits a whole round of its
    // table before its next change, so versions are not overwritten between two polls.
    const bool create = static_cast<int>(seq % 100) < options_.create_percent;
    std::string row;
    long status = 0;
    if (create) {
      status = connection.Send(
          "POST",
          options_.base + "/api/now/table/" + table + "?sysparm_fields=sys_id,sys_mod_count",
          fields, &body);
      row = SysIdOf(body);
    } else {
      row = pools_[t].front();
      pools_[t].pop_front();
      std::string url = options_.base + "/api/now/table/" + table;
      url += '/';
      url += row;
      url += "?sysparm_fields=sys_id,sys_mod_count";
      status = connection.Send("PATCH", url, fields, &body);
    }
    const auto answered = Clock::now();
    if (!row.empty()) pools_[t].push_back(row);
    if ((status != 200 && status != 201) || row.empty()) {
      ++failures_;
      continue;
    }
    std::string key = table;
    key += '/';
    key += row;
    made_[thread_index].push_back(Change{
        seq, std::move(key),
        std::chrono::duration_cast<std::chrono::microseconds>(answered - options_.epoch).count()});
    ++answered_;
  }
}

}  // namespace snowcar::bench
