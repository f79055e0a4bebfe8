// SPDX-License-Identifier: Apache-2.0
#include "client_config.h"

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <sstream>
#include <unordered_map>
#include <utility>
#include <vector>

#include "snowcar/common/log.h"
#include "snowcar/common/redact.h"

namespace snowcar::kafka::internal {
namespace {

// Parses the Markdown table rd_kafka_conf_properties_show prints: "name | C/P | ...".
std::unordered_map<std::string, PropertyScope> LoadScopes() {
  std::unordered_map<std::string, PropertyScope> scopes;
  char* buffer = nullptr;
  size_t size = 0;
  FILE* out = open_memstream(&buffer, &size);
  if (out == nullptr) return scopes;
  rd_kafka_conf_properties_show(out);
  std::fclose(out);
  std::istringstream lines(std::string(buffer, size));
  std::free(buffer);
  std::string line;
  while (std::getline(lines, line)) {
    const size_t bar = line.find('|');
    if (bar == std::string::npos) continue;
    const size_t bar2 = line.find('|', bar + 1);
    if (bar2 == std::string::npos) continue;
    std::string name = line.substr(0, bar);
    while (!name.empty() && name.back() == ' ') name.pop_back();
    std::string scope = line.substr(bar + 1, bar2 - bar - 1);
    PropertyScope s;
    if (scope.find('*') != std::string::npos) {
      s = PropertyScope::kBoth;
    } else if (scope.find('P') != std::string::npos) {
      s = PropertyScope::kProducerOnly;
    } else if (scope.find('C') != std::string::npos) {
      s = PropertyScope::kConsumerOnly;
    } else {
      continue;  // the header row
    }
    // Some names appear in both the global and the topic table; "both" wins over one side.
    auto [it, inserted] = scopes.emplace(name, s);
    if (!inserted && it->second != s) it->second = PropertyScope::kBoth;
  }
  return scopes;
}

const std::unordered_map<std::string, PropertyScope>& Scopes() {
  static const auto* scopes = new std::unordered_map<std::string, PropertyScope>(LoadScopes());
  return *scopes;
}

}  // namespace

PropertyScope ScopeOf(std::string_view name) {
  const auto& scopes = Scopes();
  auto it = scopes.find(std::string(name));
  return it == scopes.end() ? PropertyScope::kUnknown : it->second;
}

std::map<std::string, std::string> MergeProperties(
    const std::map<std::string, std::string>& user,
    const std::map<std::string, std::string>& defaults, ClientKind kind, Dropped dropped) {
  const PropertyScope other =
      kind == ClientKind::kProducer ? PropertyScope::kConsumerOnly : PropertyScope::kProducerOnly;
  std::map<std::string, std::string> out;
  for (const auto& [name, value] : user) {
    if (ScopeOf(name) == other) {
      if (dropped == Dropped::kQuiet) continue;
      SNOWCAR_LOG(kInfo, "kafka.property_dropped",
                  {{"property", name},
                   {"client", kind == ClientKind::kProducer ? "producer" : "consumer"},
                   {"reason", kind == ClientKind::kProducer ? "consumer-only property"
                                                            : "producer-only property"}});
      continue;
    }
    out.emplace(name, value);
  }
  for (const auto& [name, value] : defaults) out.emplace(name, value);  // keeps the user's
  return out;
}

std::string ClientId(const std::map<std::string, std::string>& user, std::string_view role) {
  auto it = user.find("client.id");
  if (it == user.end() || it->second.empty()) return std::string(role);
  return it->second + "-" + std::string(role);
}

namespace {

void OnLog(const rd_kafka_t* rk, int level, const char* facility, const char* message) {
  const char* client = rk != nullptr ? rd_kafka_name(rk) : "";
  // syslog levels: 0..2 critical, 3 errors, 4 warnings, 5..6 notices and info, 7 debug.
  // librdkafka reports every failed connection attempt at level 3 and again through error_cb;
  // those are transient, so its level 3 is logged as a warning here.
  if (level <= 2) {
    SNOWCAR_LOG(kError, "kafka.librdkafka",
                {{"client", client}, {"facility", facility}, {"message", Clean(message)}});
  } else if (level <= 4) {
    SNOWCAR_LOG(kWarn, "kafka.librdkafka",
                {{"client", client}, {"facility", facility}, {"message", Clean(message)}});
  } else if (level <= 6) {
    SNOWCAR_LOG(kInfo, "kafka.librdkafka",
                {{"client", client}, {"facility", facility}, {"message", Clean(message)}});
  } else {
    SNOWCAR_LOG(kDebug, "kafka.librdkafka",
                {{"client", client}, {"facility", facility}, {"message", Clean(message)}});
  }
}

void OnError(rd_kafka_t* rk, int err, const char* reason, void* /*opaque*/) {
  LogClientError(rk, err, reason);
}

}  // namespace

void LogClientError(rd_kafka_t* rk, int err, const char* reason) {
  const auto code = static_cast<rd_kafka_resp_err_t>(err);
  if (code == RD_KAFKA_RESP_ERR__FATAL) {
    char detail[512];
    const rd_kafka_resp_err_t original = rd_kafka_fatal_error(rk, detail, sizeof detail);
    SNOWCAR_LOG(kError, "kafka.fatal_error",
                {{"client", rd_kafka_name(rk)},
                 {"error", rd_kafka_err2name(original)},
                 {"reason", Clean(detail)}});
    return;
  }
  SNOWCAR_LOG(kWarn, "kafka.client_error",
              {{"client", rd_kafka_name(rk)},
               {"error", rd_kafka_err2name(code)},
               {"reason", Clean(reason != nullptr ? reason : "")}});
}

void RouteLogs(rd_kafka_conf_t* conf) {
  rd_kafka_conf_set_log_cb(conf, &OnLog);
  rd_kafka_conf_set_error_cb(conf, &OnError);
}

std::string ConfValue(rd_kafka_t* rk, const char* name) {
  char value[512];
  size_t size = sizeof value;
  if (rd_kafka_conf_get(rd_kafka_conf(rk), name, value, &size) != RD_KAFKA_CONF_OK) return "";
  return value;
}

std::string Clean(std::string_view librdkafka_text) { return redact::Mask(librdkafka_text); }

std::string_view JavaEquivalent(std::string_view name) {
  // Keys of the Java client (and of a Connect worker's `producer.`/`consumer.` settings) that
  // librdkafka refuses, with what does their job here.
  static constexpr std::pair<std::string_view, std::string_view> kJava[] = {
      {"sasl.jaas.config",
       "set sasl.mechanism and sasl.username with sasl.password (PLAIN, SCRAM-SHA-256, "
       "SCRAM-SHA-512), or the sasl.oauthbearer.* properties (OAUTHBEARER)"},
      {"ssl.truststore.location", "use ssl.ca.location with a PEM file of the CA certificates"},
      {"ssl.truststore.password", "a PEM CA file (ssl.ca.location) needs no password"},
      {"ssl.truststore.type", "ssl.ca.location takes PEM; convert a JKS truststore to PEM"},
      {"ssl.truststore.certificates", "use ssl.ca.pem"},
      {"ssl.keystore.type",
       "ssl.keystore.location takes PKCS#12 only; or use ssl.certificate.location with "
       "ssl.key.location (PEM)"},
      {"ssl.keystore.certificate.chain", "use ssl.certificate.pem"},
      {"ssl.keystore.key", "use ssl.key.pem"},
      {"ssl.protocol", "librdkafka negotiates the TLS version; leave it out"},
      {"ssl.enabled.protocols", "librdkafka negotiates the TLS version; leave it out"},
      {"sasl.login.callback.handler.class",
       "set sasl.oauthbearer.method=oidc with sasl.oauthbearer.client.id, "
       "sasl.oauthbearer.client.secret and sasl.oauthbearer.token.endpoint.url"},
      {"sasl.client.callback.handler.class", "librdkafka has no callback classes; leave it out"},
      {"buffer.memory", "use queue.buffering.max.kbytes"},
      {"max.block.ms", "librdkafka does not block on a full queue; leave it out"},
      {"max.poll.records", "librdkafka has no per-poll bound; leave it out"},
      {"client.dns.lookup", "librdkafka resolves every address of a name; leave it out"},
      {"key.serializer", "records are written as bytes; leave it out"},
      {"value.serializer", "records are written as bytes; leave it out"},
      {"key.deserializer", "records are read as bytes; leave it out"},
      {"value.deserializer", "records are read as bytes; leave it out"},
  };
  for (const auto& [java, hint] : kJava) {
    if (java == name) return hint;
  }
  return {};
}

namespace {

// librdkafka's answer for one refused property, its quoted value removed when secret, and the
// way to say it for librdkafka when the name is a Java client key.
std::string Refusal(const std::string& name, const std::string& value, std::string reason) {
  if (redact::IsSecretName(name) && !value.empty()) {
    // librdkafka quotes the refused value; the redactor ignores very short secrets, so
    // remove this one by hand before masking the rest.
    for (size_t pos = reason.find(value); pos != std::string::npos; pos = reason.find(value, pos)) {
      reason.replace(pos, value.size(), redact::kRedacted);
      pos += redact::kRedacted.size();
    }
  }
  std::string out = "kafka property '" + name + "': " + Clean(reason);
  if (const std::string_view hint = JavaEquivalent(name); !hint.empty()) {
    out += " (a Java client setting; for librdkafka " + std::string(hint) + ")";
  } else if (name == "ssl.endpoint.identification.algorithm" && value.empty()) {
    out += " (the Java client's empty value is written none for librdkafka)";
  } else if (name == "ssl.keystore.location" &&
             (value.ends_with(".jks") || value.ends_with(".JKS"))) {
    out +=
        " (a Java keystore: librdkafka reads PKCS#12, or PEM through "
        "ssl.certificate.location and ssl.key.location)";
  }
  return out;
}

}  // namespace

Result<ConfPtr> BuildConf(const std::map<std::string, std::string>& properties) {
  std::vector<std::string> problems;
  if (!properties.contains("bootstrap.servers") && !properties.contains("metadata.broker.list")) {
    problems.emplace_back(
        "kafka property 'bootstrap.servers' is required (set kafka.bootstrap.servers)");
  }
  // Register secrets first, so that whatever librdkafka says later is masked.
  for (const auto& [name, value] : properties) {
    if (redact::IsSecretName(name)) redact::RegisterSecret(value);
  }
  ConfPtr conf(rd_kafka_conf_new());
  char errstr[512];
  // Every property is tried, so that one pass lists every refused one.
  for (const auto& [name, value] : properties) {
    errstr[0] = '\0';
    if (rd_kafka_conf_set(conf.get(), name.c_str(), value.c_str(), errstr, sizeof errstr) !=
        RD_KAFKA_CONF_OK) {
      problems.push_back(Refusal(name, value, errstr));
    } else if (name == "ssl.keystore.location" &&
               (value.ends_with(".jks") || value.ends_with(".JKS"))) {
      // librdkafka would take the name and fail on the file's format only at start.
      problems.push_back(Refusal(name, value, "not a PKCS#12 file"));
    }
  }
  if (problems.empty()) return conf;
  std::string message;
  for (const std::string& problem : problems) {
    if (!message.empty()) message += "\n";
    message += problem;
  }
  return Status::InvalidArgument(message);
}

}  // namespace snowcar::kafka::internal
