// SPDX-License-Identifier: Apache-2.0
#include "snowcar/runtime/kafka_probe.h"

#include <librdkafka/rdkafka.h>

#include <algorithm>
#include <atomic>
#include <memory>

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
  // Reconnect to a broker that came back within a quarter second rather than librdkafka's
  // back-off of up to 10 s, so the probe sees a recovery at once. Only this handle's idle
  // connection attempts grow; the user's own value wins.
  producer.properties.emplace("reconnect.backoff.max.ms", "250");
  // The probe outlives the handle's poll thread (Stop closes the handle first), and the
  // callback only flags and wakes the loop: librdkafka says "all brokers down" within a
  // fraction of a second, the periodic probe only every `interval`.
  auto shared = std::make_shared<std::atomic<KafkaProbe*>>(nullptr);
  producer.on_client_error = [shared](int err) {
    if (err != RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN) return;
    if (KafkaProbe* probe = shared->load()) probe->OnAllBrokersDown();
  };
  auto handle = kafka::KafkaProducer::Create(producer);
  if (!handle.ok()) return handle.status().WithContext("Kafka metadata probe");
  auto probe = std::unique_ptr<KafkaProbe>(
      new KafkaProbe(std::move(options), health, std::move(handle).value()));
  shared->store(probe.get());
  return probe;
}

void KafkaProbe::OnAllBrokersDown() {
  {
    MutexLock lock(mu_);
    brokers_down_ = true;
  }
  cv_.NotifyAll();
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
  bool check_now = false;  // librdkafka said every broker is down: probe with a short timeout
  while (true) {
    // A short timeout after "all brokers down", so the outage shows within ~1 s of it; a
    // broker that only dropped an idle connection answers well within that.
    const auto timeout =
        check_now ? std::min(options_.timeout, options_.down_check_timeout) : options_.timeout;
    const bool ok = handle_->MetadataReachable(timeout);
    const bool was = reachable_.exchange(ok);
    if (ok) reached_once_.store(true);
    if (health_ != nullptr) {
      health_->Report("kafka", ok,
                      ok ? "metadata answered by " + bootstrap_
                         : "no metadata answer from " + bootstrap_ + " within " +
                               std::to_string(timeout.count()) + " ms");
    }
    // Transitions only, so an outage logs two lines rather than one per probe.
    if (ok && (first || !was)) {
      SNOWCAR_LOG(kInfo, "kafka.reachable", {{"bootstrap", bootstrap_}});
    } else if (!ok && (first || was)) {
      SNOWCAR_LOG(kWarn, "kafka.unreachable",
                  {{"bootstrap", bootstrap_}, {"timeout_ms", timeout.count()}});
    }
    first = false;
    const auto until = std::chrono::steady_clock::now() + (ok ? options_.interval : options_.retry);
    MutexLock lock(mu_);
    // "All brokers down" from before this probe is stale: only a newer one cuts the wait.
    if (!ok) brokers_down_ = false;
    while (!stopping_ && !brokers_down_ && cv_.WaitUntil(lock, until)) {
    }
    if (stopping_) return;
    check_now = brokers_down_;
    brokers_down_ = false;
  }
}

}  // namespace snowcar::runtime
