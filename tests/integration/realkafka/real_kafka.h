// SPDX-License-Identifier: Apache-2.0
// What the `kafka`-labelled tests share: the Apache Kafka broker the ctest fixture started
// (scripts/kafka-fixture writes its addresses to SNOWCAR_KAFKA_ADDRESSES), the emulator, and
// `snowcar run` as a child process with its socket and metrics.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "snowcar/testbed/emulator/emulator_server.h"
#include "support/child_process.h"
#include "support/kafka_admin.h"
#include "support/kafka_client.h"
#include "support/metrics_text.h"
#include "support/temp_dir.h"

namespace snowcar::realkafka {

// The KEY=VALUE lines scripts/kafka-server prints.
struct RealKafka {
  std::string version;
  std::string plaintext;  // bootstrap of the PLAINTEXT listener (super user ANONYMOUS)
  std::string sasl_ssl;   // bootstrap of the SASL_SSL listener
  std::string ca_location;
  std::string admin_user, admin_password;
  std::string scram_user, scram_password;  // SCRAM-SHA-512, no rights but granted ones
  std::string plain_user, plain_password;  // PLAIN, no rights but granted ones

  // librdkafka properties of a client on the PLAINTEXT listener (a super user).
  testsupport::KafkaConfig Admin() const { return {{"bootstrap.servers", plaintext}}; }
  // librdkafka properties of a client on the SASL_SSL listener as `user`.
  testsupport::KafkaConfig Sasl(const std::string& user, const std::string& password,
                                const std::string& mechanism = "SCRAM-SHA-512") const;
};

// Reads the fixture's file. Without it (the test binary run outside ctest) the error says
// how to start a broker by hand.
Result<RealKafka> LoadRealKafka();
// Reads the addresses file of scripts/kafka-server at `path`.
Result<RealKafka> LoadRealKafka(const std::string& path);

// key -> one entry per record of `topic` in offset order, "NULL" for a tombstone and "value"
// otherwise; read with kcat over `bootstrap` from the start to the end of the log.
std::map<std::string, std::vector<std::string>> ReadLog(const std::string& bootstrap,
                                                        const std::string& topic);

// scripts/kafka-server of this source tree, for a test that runs a broker of its own.
std::string KafkaServerScript();

// Sum of every sample of `name` in a /metrics text; -1 when `text` is not one.
using testsupport::MetricSum;

// A test with the broker's addresses, an emulator with an `incident` table and a temp dir.
class RealKafkaTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;

  // `snowcar run --config <file>` with `lines` (key=value) as its configuration, JSON logs
  // on stderr (captured), the socket in the temp dir. `name` keeps two sidecars apart.
  std::unique_ptr<testsupport::ChildProcess> StartSidecar(
      const std::string& name, const std::vector<std::string>& lines,
      const std::vector<std::pair<std::string, std::string>>& env = {});
  // A sidecar for a kill loop, started so that a kill lands at a random point: in one start of
  // four at once (anywhere in start-up: fencing, restore), in the others after its table
  // started; then up to `max_delay_ms` later. Null, with the failure recorded, if it did not
  // start or its table did not within 30 s.
  std::unique_ptr<testsupport::ChildProcess> StartForKill(const std::string& name,
                                                          const std::vector<std::string>& lines,
                                                          std::mt19937& rng, int max_delay_ms);
  // The lines every sidecar of these tests has: emulator, state dir, socket, log format.
  std::vector<std::string> BaseConfig(const std::string& name) const;
  std::string Socket(const std::string& name) const { return dir_.File(name + ".sock"); }
  // GET on a sidecar's socket: the body, or "" when it does not answer 200.
  std::string Get(const std::string& name, const std::string& path) const;
  // A file holding `secret` (for kafka.sasl.password.file).
  std::string SecretFile(const std::string& file, const std::string& secret) const;
  // Rows of the emulator's `incident` table.
  size_t IncidentRows();
  // Distinct short_description values of the emulator's incident rows.
  std::set<std::string> Descriptions();
  // Starts scripts/kafka-server `args` as a broker of this test's own (for what would disturb
  // the shared one) and points kafka_ at it once it serves; TearDown stops it.
  void UseOwnBroker(const std::vector<std::string>& args);

  // The addresses file SetUp reads: the run's one broker unless a fixture sets another (the
  // three-broker cluster's, SNOWCAR_KAFKA_CLUSTER_ADDRESSES) in its constructor.
  std::string addresses_file_ = SNOWCAR_KAFKA_ADDRESSES;
  RealKafka kafka_;
  std::unique_ptr<testsupport::ChildProcess> own_broker_;
  emulator::EmulatorServer emu_;
  testsupport::TempDir dir_{"snowcar-realkafka"};
};

}  // namespace snowcar::realkafka
