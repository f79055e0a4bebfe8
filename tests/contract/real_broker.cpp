// SPDX-License-Identifier: Apache-2.0
#include "real_broker.h"

#include <signal.h>
#include <stdlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "support/kafka_admin.h"
#include "support/wait.h"

namespace snowcar::contract {
namespace {

using namespace std::chrono_literals;

// The PLAINTEXT bootstrap in an addresses file of scripts/kafka-server ("" when none).
std::string Plaintext(const std::string& path) {
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("PLAINTEXT=", 0) == 0) return line.substr(10);
  }
  return "";
}

}  // namespace

Result<std::unique_ptr<RealBroker>> RealBroker::Shared() {
  const std::string bootstrap = Plaintext(CONTRACT_KAFKA_ADDRESSES);
  if (bootstrap.empty()) return Status::NotFound("no broker at " CONTRACT_KAFKA_ADDRESSES);
  std::unique_ptr<RealBroker> b(new RealBroker());
  b->bootstrap_ = bootstrap;
  return b;
}

Result<std::unique_ptr<RealBroker>> RealBroker::StartOwn() {
  std::unique_ptr<RealBroker> b(new RealBroker());
  std::string tmpl = (std::filesystem::temp_directory_path() / "snowcar-contract-kafka.XXXXXX");
  if (::mkdtemp(tmpl.data()) == nullptr) return Status::Internal("mkdtemp for a broker");
  b->dir_ = tmpl;
  const std::string addresses = b->dir_ + "/addresses";
  testsupport::ChildOptions opts;
  opts.args = {"--addresses-file", addresses};
  opts.capture_stderr = true;
  std::fprintf(stdout,
               "          starting Apache Kafka of the driver's own (scripts/kafka-server)\n");
  SNOWCAR_ASSIGN_OR_RETURN(b->server_,
                           testsupport::ChildProcess::Spawn(CONTRACT_KAFKA_SERVER, opts));
  // The script writes the file atomically once the broker serves.
  if (!testsupport::WaitFor([&] { return !Plaintext(addresses).empty(); }, 150s, 200ms)) {
    return Status::Unavailable("scripts/kafka-server did not serve within 150 s: " +
                               b->server_->Stderr());
  }
  b->bootstrap_ = Plaintext(addresses);
  return b;
}

Result<RealBroker*> RealBroker::ForRun(bool restarts) {
  // Kept until the driver exits: starting Apache Kafka takes seconds, runs are many.
  static std::unique_ptr<RealBroker> shared;
  static std::unique_ptr<RealBroker> own;
  if (!restarts && shared == nullptr) {
    if (auto s = Shared(); s.ok()) shared = std::move(s).value();
  }
  if (!restarts && shared != nullptr) return shared.get();
  if (own == nullptr) {
    SNOWCAR_ASSIGN_OR_RETURN(own, StartOwn());
  }
  return own.get();
}

RealBroker::~RealBroker() {
  if (server_ != nullptr) {
    // SIGTERM: the script stops its broker and deletes its directory (SIGKILL would leave
    // the JVM running).
    (void)server_->Signal(SIGTERM);
    (void)server_->Wait(60s);
  }
  if (!dir_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
}

Status RealBroker::CreateTopic(const std::string& name, int partitions) {
  return testsupport::CreateTopic({{"bootstrap.servers", bootstrap_}}, name, partitions);
}

Status RealBroker::Restart() {
  if (server_ == nullptr) return Status::FailedPrecondition("the shared broker is never restarted");
  return server_->Signal(SIGUSR1);
}

}  // namespace snowcar::contract
