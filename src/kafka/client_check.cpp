// SPDX-License-Identifier: Apache-2.0
#include "client_check.h"

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <unordered_map>
#include <vector>

namespace snowcar::kafka::internal {
namespace {

// alias -> the property it stands for, from the table rd_kafka_conf_properties_show prints:
// a row whose description starts "Alias for `name`:". Deprecated legacy rows ("**DEPRECATED**
// Alias for ...") are left out: their names also exist as properties of their own.
std::unordered_map<std::string, std::string> LoadAliases() {
  std::unordered_map<std::string, std::string> aliases;
  char* buffer = nullptr;
  size_t size = 0;
  FILE* out = open_memstream(&buffer, &size);
  if (out == nullptr) return aliases;
  rd_kafka_conf_properties_show(out);
  std::fclose(out);
  std::istringstream lines(std::string(buffer, size));
  std::free(buffer);
  static constexpr std::string_view kMarker = "| Alias for `";
  for (std::string line; std::getline(lines, line);) {
    const size_t marker = line.find(kMarker);
    if (marker == std::string::npos) continue;
    const size_t start = marker + kMarker.size();
    const size_t end = line.find('`', start);
    if (end == std::string::npos) continue;
    std::string name = line.substr(0, line.find('|'));
    while (!name.empty() && name.back() == ' ') name.pop_back();
    aliases.emplace(std::move(name), line.substr(start, end - start));
  }
  return aliases;
}

const std::unordered_map<std::string, std::string>& Aliases() {
  static const auto* aliases = new std::unordered_map<std::string, std::string>(LoadAliases());
  return *aliases;
}

void Silent(const rd_kafka_t* /*rk*/, int /*level*/, const char* /*fac*/, const char* /*msg*/) {}
void SilentError(rd_kafka_t* /*rk*/, int /*err*/, const char* /*reason*/, void* /*opaque*/) {}

}  // namespace

Status CheckAliasConflicts(const std::map<std::string, std::string>& user) {
  std::vector<std::string> problems;
  for (const auto& [name, value] : user) {
    const auto alias = Aliases().find(name);
    if (alias == Aliases().end()) continue;
    const auto target = user.find(alias->second);
    if (target == user.end() || target->second == value) continue;
    const std::string& target_name = alias->second;
    std::string problem = "kafka properties '" + name + "' and '";
    problem += target_name;
    problem += "' are one librdkafka setting ('" + name + "' is another name for '";
    problem += target_name;
    problem += "') and are given different values: give only one (kafka." + name;
    problem += " or kafka." + target_name + ")";
    problems.push_back(std::move(problem));
  }
  if (problems.empty()) return Status::Ok();
  std::string message;
  for (const std::string& problem : problems) {
    if (!message.empty()) message += "\n";
    message += problem;
  }
  return Status::InvalidArgument(message);
}

Status CreateClientOffline(rd_kafka_type_t type, ConfPtr conf) {
  char errstr[512];
  // No broker: nothing is contacted, the client only builds what it checks at creation.
  for (const char* key : {"bootstrap.servers", "metadata.broker.list"}) {
    (void)rd_kafka_conf_set(conf.get(), key, "", errstr, sizeof errstr);
  }
  rd_kafka_conf_set_log_cb(conf.get(), &Silent);
  rd_kafka_conf_set_error_cb(conf.get(), &SilentError);
  errstr[0] = '\0';
  rd_kafka_t* rk = rd_kafka_new(type, conf.get(), errstr, sizeof errstr);
  const char* what = type == RD_KAFKA_PRODUCER ? "producer" : "consumer";
  if (rk == nullptr) {
    return Status::InvalidArgument("cannot create the kafka " + std::string(what) + ": " +
                                   Clean(errstr));
  }
  (void)conf.release();  // rd_kafka_new took it
  rd_kafka_destroy_flags(rk, RD_KAFKA_DESTROY_F_NO_CONSUMER_CLOSE);
  return Status::Ok();
}

}  // namespace snowcar::kafka::internal
