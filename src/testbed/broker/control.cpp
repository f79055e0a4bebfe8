// SPDX-License-Identifier: Apache-2.0
#include "snowcar/testbed/broker/control.h"

#include <cctype>
#include <charconv>
#include <sstream>
#include <vector>

namespace snowcar::broker {
namespace {

constexpr ApiKey kAllApiKeys[] = {
    ApiKey::kProduce,         ApiKey::kFetch,
    ApiKey::kListOffsets,     ApiKey::kMetadata,
    ApiKey::kOffsetCommit,    ApiKey::kOffsetFetch,
    ApiKey::kFindCoordinator, ApiKey::kJoinGroup,
    ApiKey::kHeartbeat,       ApiKey::kLeaveGroup,
    ApiKey::kSyncGroup,       ApiKey::kApiVersions,
    ApiKey::kInitProducerId,  ApiKey::kAddPartitionsToTxn,
    ApiKey::kAddOffsetsToTxn, ApiKey::kEndTxn,
    ApiKey::kTxnOffsetCommit,
};

Result<int> ParseInt(std::string_view what, std::string_view text) {
  int value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end) {
    return Status::InvalidArgument(std::string(what) + ": '" + std::string(text) +
                                   "' is not a whole number");
  }
  return value;
}

Result<int> ParseBrokerId(std::string_view text) {
  if (text == "all") return kAllBrokers;
  return ParseInt("broker id", text);
}

std::vector<std::string> Words(std::string_view line) {
  std::istringstream in{std::string(line)};
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

Status WantArgs(const std::vector<std::string>& w, size_t min, size_t max, std::string_view usage) {
  if (w.size() < min || w.size() > max) {
    return Status::InvalidArgument("usage: " + std::string(usage));
  }
  return Status::Ok();
}

}  // namespace

Result<ApiKey> ParseApiKey(std::string_view name) {
  for (ApiKey key : kAllApiKeys) {
    if (ApiKeyName(key) == name) return key;
  }
  return Status::InvalidArgument("unknown request kind '" + std::string(name) +
                                 "' (e.g. Produce, Fetch, OffsetCommit)");
}

Result<rd_kafka_resp_err_t> ParseKafkaError(std::string_view text) {
  if (!text.empty() && (std::isdigit(static_cast<unsigned char>(text[0])) || text[0] == '-')) {
    SNOWCAR_ASSIGN_OR_RETURN(int code, ParseInt("error code", text));
    return static_cast<rd_kafka_resp_err_t>(code);
  }
  constexpr std::string_view kPrefix = "RD_KAFKA_RESP_ERR_";
  if (text.starts_with(kPrefix)) text.remove_prefix(kPrefix.size());
  const struct rd_kafka_err_desc* descs = nullptr;
  size_t count = 0;
  rd_kafka_get_err_descs(&descs, &count);
  for (size_t i = 0; i < count; ++i) {
    if (descs[i].name != nullptr && text == descs[i].name) return descs[i].code;
  }
  return Status::InvalidArgument("unknown Kafka error '" + std::string(text) + "'");
}

Result<std::string> RunControlCommand(EmbeddedBroker& broker, std::string_view line) {
  const std::vector<std::string> w = Words(line);
  if (w.empty()) return Status::InvalidArgument("empty command");
  const std::string& verb = w[0];
  if (verb == "down" || verb == "up") {
    SNOWCAR_RETURN_IF_ERROR(WantArgs(w, 2, 2, verb + " <id|all>"));
    SNOWCAR_ASSIGN_OR_RETURN(int id, ParseBrokerId(w[1]));
    SNOWCAR_RETURN_IF_ERROR(verb == "down" ? broker.SetBrokerDown(id) : broker.SetBrokerUp(id));
    return "ok " + verb + " " + w[1];
  }
  if (verb == "rtt") {
    SNOWCAR_RETURN_IF_ERROR(WantArgs(w, 3, 3, "rtt <id|all> <ms>"));
    SNOWCAR_ASSIGN_OR_RETURN(int id, ParseBrokerId(w[1]));
    SNOWCAR_ASSIGN_OR_RETURN(int ms, ParseInt("rtt", w[2]));
    SNOWCAR_RETURN_IF_ERROR(broker.SetRtt(id, ms));
    return "ok rtt " + w[1] + " " + w[2];
  }
  if (verb == "errors") {
    SNOWCAR_RETURN_IF_ERROR(WantArgs(w, 3, 4, "errors <Api> <ERROR> [count]"));
    SNOWCAR_ASSIGN_OR_RETURN(ApiKey api, ParseApiKey(w[1]));
    SNOWCAR_ASSIGN_OR_RETURN(rd_kafka_resp_err_t err, ParseKafkaError(w[2]));
    int count = 1;
    if (w.size() == 4) {
      SNOWCAR_ASSIGN_OR_RETURN(count, ParseInt("count", w[3]));
      if (count < 1 || count > 100000) {
        return Status::InvalidArgument("count must be 1..100000, got " + w[3]);
      }
    }
    SNOWCAR_RETURN_IF_ERROR(broker.PushRequestErrors(
        api, std::vector<rd_kafka_resp_err_t>(static_cast<size_t>(count), err)));
    return "ok errors " + w[1] + " " + w[2] + " " + std::to_string(count);
  }
  if (verb == "clear") {
    SNOWCAR_RETURN_IF_ERROR(WantArgs(w, 2, 2, "clear <Api>"));
    SNOWCAR_ASSIGN_OR_RETURN(ApiKey api, ParseApiKey(w[1]));
    SNOWCAR_RETURN_IF_ERROR(broker.ClearRequestErrors(api));
    return "ok clear " + w[1];
  }
  return Status::InvalidArgument("unknown command '" + verb + "' (down, up, rtt, errors, clear)");
}

}  // namespace snowcar::broker
