// SPDX-License-Identifier: Apache-2.0
#include "snowcar/runtime/kafka_probe.h"

#include "snowcar/api/readiness.h"
#include "snowcar/common/log.h"
#include "snowcar/common/mutex.h"
#include "snowcar/kafka/producer.h"

namespace snowcar::runtime {
namespace {

std::string BootstrapOf(const std::map<std::string, std::string>& properties) {
  for (const char* key : {"bootstrap.servers", "metadata.broker.list"}) {
    if (auto it = properties.find(key); it != properties.end()) return it->second;
  }
  return "";
}

}  // namespace

Result<std::unique_ptr<KafkaProbe>> KafkaProbe::Create(KafkaProbeOptions options,
                                                       api::HealthRegistry* health) {
  kafka::ProducerOptions producer;
  producer.properties = options.properties;
  producer.idempotent = false;  // nothing is produced; idempotence would only add requests
  producer.client_id = "snowcar-probe";
  auto handle = kafka::KafkaProducer::Create(producer);
  if (!handle.ok()) return handle.status().WithContext("Kafka metadata probe");
  return std::unique_ptr<KafkaProbe>(
      new KafkaProbe(std::move(options), health, std::move(handle).value()));
}

KafkaProbe::KafkaProbe(KafkaProbeOptions options, api::HealthRegistry* health,
                       std::unique_ptr<kafka::KafkaProducer> handle)
    : options_(std::move(options)),
      health_(health),
      handle_(std::move(handle)),
      bootstrap_(BootstrapOf(options_.properties)) {
  if (health_ != nullptr) health_->Report("kafka", false, "probing " + bootstrap_);
}

KafkaProbe::~KafkaProbe() { Stop(); }

void KafkaProbe::Start() {
  MutexLock lock(mu_);
  if (thread_.joinable() || stopping_) return;
  thread_ = std::thread([this] { Loop(); });
}

void KafkaProbe::RequestStop() {
  {
    MutexLock lock(mu_);
    stopping_ = true;
  }
  cv_.NotifyAll();
}

void KafkaProbe::Stop() {
  RequestStop();
  if (thread_.joinable()) thread_.join();
  if (handle_) handle_->Close(std::chrono::milliseconds(0));
}

void KafkaProbe::Loop() {
  bool first = true;
  while (true) {
    const bool ok = handle_->MetadataReachable(options_.timeout);
    const bool was = reachable_.exchange(ok);
    if (ok) reached_once_.store(true);
    if (health_ != nullptr) {
      health_->Report("kafka", ok,
                      ok ? "metadata answered by " + bootstrap_
                         : "no metadata answer from " + bootstrap_ + " within " +
                               std::to_string(options_.timeout.count()) + " ms");
    }
    // Transitions only, so an outage logs two lines rather than one per probe.
    if (ok && (first || !was)) {
      SNOWCAR_LOG(kInfo, "kafka.reachable", {{"bootstrap", bootstrap_}});
    } else if (!ok && (first || was)) {
      SNOWCAR_LOG(kWarn, "kafka.unreachable",
                  {{"bootstrap", bootstrap_}, {"timeout_ms", options_.timeout.count()}});
    }
    first = false;
    const auto until = std::chrono::steady_clock::now() + (ok ? options_.interval : options_.retry);
    MutexLock lock(mu_);
    while (!stopping_ && cv_.WaitUntil(lock, until)) {
    }
    if (stopping_) return;
  }
}

}  // namespace snowcar::runtime
