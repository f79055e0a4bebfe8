// SPDX-License-Identifier: Apache-2.0
// Turning the user's `kafka.*` properties into a librdkafka configuration, shared by the
// producer and the consumer.
//
// Why this exists: librdkafka accepts a consumer property on a producer (and the reverse) and
// only warns about it once the handle is built, and its error strings quote the refused value,
// which may be a password. Building the configuration here lets both clients drop properties
// meant for the other side with a log note, refuse what they cannot honour, and report a bad
// property by name without ever echoing a secret value.
#pragma once

#include <librdkafka/rdkafka.h>

#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "snowcar/common/status.h"

namespace snowcar::kafka::internal {

enum class ClientKind { kProducer, kConsumer };

// Which client a property applies to, from librdkafka's own property table
// (rd_kafka_conf_properties_show), so the answer follows the installed library version.
enum class PropertyScope { kBoth, kProducerOnly, kConsumerOnly, kUnknown };
PropertyScope ScopeOf(std::string_view name);

struct ConfDeleter {
  void operator()(rd_kafka_conf_t* conf) const { rd_kafka_conf_destroy(conf); }
};
using ConfPtr = std::unique_ptr<rd_kafka_conf_t, ConfDeleter>;

// Whether MergeProperties logs each property it drops (not when only checking a config).
enum class Dropped { kLog, kQuiet };

// The final property map for `kind`: the user's properties minus those of the other client
// kind (each dropped one logged unless kQuiet), with `defaults` added where the user set
// nothing.
std::map<std::string, std::string> MergeProperties(
    const std::map<std::string, std::string>& user,
    const std::map<std::string, std::string>& defaults, ClientKind kind,
    Dropped dropped = Dropped::kLog);

// client.id: `role` alone, or "<user's client.id>-<role>" when the user set one.
std::string ClientId(const std::map<std::string, std::string>& user, std::string_view role);

// Applies `properties` to a fresh conf. kInvalidArgument lists every refused property, one a
// line, with librdkafka's reason and, for a Java client key, what librdkafka takes instead; the
// value of a secret property (redact::IsSecretName) never appears in the message, and such
// values are registered with the redactor so later librdkafka log lines mask them too.
// Also requires bootstrap.servers (or its alias metadata.broker.list).
Result<ConfPtr> BuildConf(const std::map<std::string, std::string>& properties);

// For a Java client key librdkafka does not take (sasl.jaas.config, ssl.truststore.location),
// what to write instead; "" for any other name.
std::string_view JavaEquivalent(std::string_view name);

// Sends librdkafka's own log lines through snowcar's logger (JSON, redacted) instead of
// librdkafka's default plain-text stderr writer, and its client-level errors (error_cb) too:
// each is logged as a warning; a fatal one as an error.
void RouteLogs(rd_kafka_conf_t* conf);
// The logging half of the error_cb RouteLogs installs, for clients that install their own
// error_cb (to count errors) and still want them logged the same way.
void LogClientError(rd_kafka_t* rk, int err, const char* reason);

// The value a created handle holds for a (non-secret) property; "" when unset or unknown.
std::string ConfValue(rd_kafka_t* rk, const char* name);

// Masks secrets in a librdkafka message (error strings, log lines) before it leaves the module.
std::string Clean(std::string_view librdkafka_text);

}  // namespace snowcar::kafka::internal
