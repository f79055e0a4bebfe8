// SPDX-License-Identifier: Apache-2.0
// Collects the delivery reports of numbered records for the producer tests: how often each
// callback ran, on which strand, and with what report.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <boost/asio/strand.hpp>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "snowcar/kafka/producer.h"

namespace snowcar::kafka::testing {

// A producer on `bootstrap` with `extra` librdkafka properties; null (the test failed) when it
// cannot be created.
inline std::unique_ptr<KafkaProducer> MakeProducer(const std::string& bootstrap,
                                                   std::map<std::string, std::string> extra) {
  ProducerOptions options;
  options.properties = std::move(extra);
  options.properties["bootstrap.servers"] = bootstrap;
  auto producer = KafkaProducer::Create(options);
  EXPECT_TRUE(producer.ok()) << producer.status().ToString();
  return producer.ok() ? std::move(*producer) : nullptr;
}

class ReportCollector {
 public:
  explicit ReportCollector(size_t count) : reports_(count), calls_(count, 0) {}

  // The callback for record `index`; if `strand` is given, it also checks that the callback
  // runs inside that strand.
  template <typename Strand = boost::asio::strand<boost::asio::any_io_executor>>
  DeliveryCallback For(size_t index, const Strand* strand = nullptr) {
    return [this, index, strand](DeliveryReport report) {
      const bool on_strand = strand == nullptr || strand->running_in_this_thread();
      {
        std::lock_guard lock(mu_);
        ++calls_[index];
        if (!on_strand) ++off_strand_;
        reports_[index] = std::move(report);
      }
      // Last touch of the collector: a test that waits for total() may destroy it the moment
      // it sees the count, so the mutex must already be unlocked by then.
      ++total_;
    };
  }

  // Callbacks run so far (each counts, even a second call for one record).
  size_t total() const { return total_.load(); }
  int calls(size_t index) const {
    std::lock_guard lock(mu_);
    return calls_[index];
  }
  int off_strand() const {
    std::lock_guard lock(mu_);
    return off_strand_;
  }
  DeliveryReport report(size_t index) const {
    std::lock_guard lock(mu_);
    return reports_[index].value_or(DeliveryReport{Status::Internal("no report"), -1, -1});
  }
  // Indexes whose callback ran a number of times other than once; empty when all ran once.
  std::vector<size_t> NotExactlyOnce() const {
    std::lock_guard lock(mu_);
    std::vector<size_t> out;
    for (size_t i = 0; i < calls_.size(); ++i) {
      if (calls_[i] != 1) out.push_back(i);
    }
    return out;
  }
  // The first report that is not OK, as text; empty when all are OK.
  std::string FirstError() const {
    std::lock_guard lock(mu_);
    for (size_t i = 0; i < reports_.size(); ++i) {
      if (reports_[i].has_value() && !reports_[i]->status.ok()) {
        return "record " + std::to_string(i) + ": " + reports_[i]->status.ToString();
      }
    }
    return "";
  }

 private:
  mutable std::mutex mu_;
  std::vector<std::optional<DeliveryReport>> reports_;
  std::vector<int> calls_;
  int off_strand_ = 0;
  std::atomic<size_t> total_{0};
};

}  // namespace snowcar::kafka::testing
