// SPDX-License-Identifier: Apache-2.0
// Is Kafka reachable? A metadata request through librdkafka, repeated in the background.
//
// Between probes, librdkafka's own "all brokers down" error wakes the probe at once, so an
// outage shows within about a second (down_check_timeout) without probing more often while
// Kafka is fine; the probe handle reconnects every 250 ms at most, so a recovery shows as fast.
//
// /v1/ready waits for the first answer, so a pod is not marked ready while its sidecar
// cannot reach the brokers at all; after that, the "kafka" health component (and the
// snowcar_kafka_metadata_reachable gauge) follow every probe, but readiness stays: a broker
// outage is a degraded state the sidecar rides out, not a reason to pull the pod from service.
//
// The probe uses its own small librdkafka handle (no idempotence, nothing produced) rather
// than the source's producer or the sink's consumer: it then works whichever direction is
// enabled, and a metadata request never competes with a produce on the same handle. Its
// thread blocks in librdkafka, never on the shared pool.
#pragma once

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include "snowcar/common/mutex.h"
#include "snowcar/common/status.h"

namespace snowcar::api {
class HealthRegistry;
}
namespace snowcar::kafka {
class KafkaProducer;
}

namespace snowcar::runtime {

struct KafkaProbeOptions {
  // librdkafka properties: the `kafka.*` keys with the prefix stripped.
  std::map<std::string, std::string> properties;
  std::chrono::milliseconds timeout{2000};    // one metadata request
  std::chrono::milliseconds retry{250};       // between probes until one succeeds or after a miss
  std::chrono::milliseconds interval{15000};  // between probes while reachable
  // One metadata request right after librdkafka reported every broker down (its error
  // callback, RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN): the outage shows within about this long
  // instead of at the next `interval`.
  std::chrono::milliseconds down_check_timeout{1000};
};

class KafkaProbe {
 public:
  // Creates the handle (fails like KafkaProducer::Create: bad property, no bootstrap).
  // `health` (may be null) receives the "kafka" component and must outlive the probe.
  static Result<std::unique_ptr<KafkaProbe>> Create(KafkaProbeOptions options,
                                                    api::HealthRegistry* health);
  ~KafkaProbe();  // Stop()

  KafkaProbe(const KafkaProbe&) = delete;
  KafkaProbe& operator=(const KafkaProbe&) = delete;

  void Start();  // starts the probe thread; the first probe runs at once
  // Asks the thread to finish without waiting: a probe in flight still runs to its timeout,
  // so the sidecar calls this first and Stop() after draining the directions, overlapping
  // the two waits.
  void RequestStop();
  void Stop();  // RequestStop(), joins the thread, closes the handle; idempotent

  bool reached_once() const { return reached_once_.load(); }  // any probe answered
  bool reachable() const { return reachable_.load(); }        // the latest probe answered
  const std::string& bootstrap() const { return bootstrap_; }

 private:
  KafkaProbe(KafkaProbeOptions options, api::HealthRegistry* health,
             std::unique_ptr<kafka::KafkaProducer> handle);
  void Loop();
  // From the handle's poll thread: wake the loop for a probe now.
  void OnAllBrokersDown();

  const KafkaProbeOptions options_;
  api::HealthRegistry* const health_;
  std::unique_ptr<kafka::KafkaProducer> handle_;
  const std::string bootstrap_;
  std::atomic<bool> reached_once_{false};
  std::atomic<bool> reachable_{false};

  Mutex mu_;
  CondVar cv_;
  bool stopping_ SNOWCAR_GUARDED_BY(mu_) = false;
  bool brokers_down_ SNOWCAR_GUARDED_BY(mu_) = false;  // reported since the last probe
  std::thread thread_;
};

}  // namespace snowcar::runtime
