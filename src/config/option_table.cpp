// SPDX-License-Identifier: Apache-2.0
// THE option table. One entry per key (or key family); see include/snowcar/config/options.h.
// Groups appear in docs/configuration.md in the order they are first used here.
#include <string>

#include "option_table_parts.h"
#include "snowcar/config/options.h"
#include "value_checks.h"

namespace snowcar::config {
namespace {

using T = OptionType;

constexpr std::string_view kConnection = "ServiceNow instance and authentication";
constexpr std::string_view kHttp = "HTTP client";
constexpr std::string_view kRetry = "Retries";
constexpr std::string_view kTls = "TLS";
constexpr std::string_view kSidecar = "Sidecar process";
constexpr std::string_view kKafka = "Kafka client";
constexpr std::string_view kConnect = "Kafka Connect keys accepted for compatibility";

// socket.allowed.uids: each item a uid (a decimal number below 2^32).
std::string CheckUidList(std::string_view value) {
  size_t start = 0;
  while (start <= value.size()) {
    size_t comma = value.find(',', start);
    if (comma == std::string_view::npos) comma = value.size();
    std::string_view item = value.substr(start, comma - start);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    const bool digits = !item.empty() && item.size() <= 10 &&
                        item.find_first_not_of("0123456789") == std::string_view::npos;
    if (!item.empty() && (!digits || std::stoull(std::string(item)) > 0xFFFFFFFFull)) {
      return "'" + std::string(item) + "' is not a numeric uid (e.g. 1000,1001)";
    }
    start = comma + 1;
  }
  return "";
}

std::vector<OptionSpec> CoreOptions() {
  return {
      // --- ServiceNow instance and authentication -------------------------------------------
      {.name = "snow.url",
       .type = T::kUrl,
       .group = kConnection,
       .doc = "Base URL of the ServiceNow instance, e.g. `https://acme.service-now.com`. A path "
              "prefix (for a reverse proxy) is kept; a trailing `/` is dropped. Required when "
              "the source or the sink is enabled; with both disabled the sidecar runs alone."},
      {.name = "snow.auth.type",
       .type = T::kEnum,
       .default_value = "basic",
       .allowed = {"basic", "oauth2"},
       .group = kConnection,
       .doc = "How requests authenticate: HTTP basic with `snow.auth.username` and "
              "`snow.auth.password`, or an OAuth 2 bearer token from `snow.oauth.token.url`."},
      {.name = "snow.auth.username",
       .group = kConnection,
       .doc = "Integration user. Needed for basic auth and for the OAuth `password` grant. "
              "Its time zone in ServiceNow should be UTC, since cursors compare timestamps."},
      {.name = "snow.auth.password",
       .type = T::kPassword,
       .group = kConnection,
       .doc = "Password of `snow.auth.username`."},
      {.name = "snow.oauth.grant.type",
       .type = T::kEnum,
       .default_value = "client_credentials",
       .allowed = {"client_credentials", "password"},
       .group = kConnection,
       .doc = "OAuth grant used to obtain tokens when `snow.auth.type=oauth2`. The `password` "
              "grant also sends the username and password."},
      {.name = "snow.oauth.token.url",
       .type = T::kUrl,
       .default_value = "{snow.url}/oauth_token.do",
       .group = kConnection,
       .doc = "Token endpoint. The default is the instance's own endpoint."},
      {.name = "snow.oauth.client.id",
       .group = kConnection,
       .doc = "OAuth client id, registered in the instance's application registry."},
      {.name = "snow.oauth.client.secret",
       .type = T::kPassword,
       .group = kConnection,
       .doc = "OAuth client secret."},
      {.name = "snow.oauth.scope",
       .group = kConnection,
       .doc = "OAuth scope to request; empty asks for the client's default scope."},

      // --- HTTP client ------------------------------------------------------------------------
      {.name = "snow.http.connect.timeout.ms",
       .type = T::kInt,
       .default_value = "10000",
       .min = 1,
       .max = kDayMs,
       .group = kHttp,
       .doc = "Time allowed to open a connection (TCP and TLS) before the attempt counts as "
              "failed and is retried."},
      {.name = "snow.http.request.timeout.ms",
       .type = T::kInt,
       .default_value = "60000",
       .min = 1,
       .max = kDayMs,
       .group = kHttp,
       .doc = "Time allowed for one whole request, from sending to the last byte of the "
              "answer. Large source pages need more time than single sink writes."},
      {.name = "snow.http.proxy.url",
       .type = T::kUrl,
       .group = kHttp,
       .doc = "HTTP proxy for all requests to the instance; empty means a direct connection."},
      {.name = "snow.http.proxy.username",
       .group = kHttp,
       .doc = "User for the proxy, if it asks for one."},
      {.name = "snow.http.proxy.password",
       .type = T::kPassword,
       .group = kHttp,
       .doc = "Password for the proxy user."},
      {.name = "snow.http.max.concurrent.requests",
       .type = T::kInt,
       .default_value = "8",
       .min = 1,
       .max = 1024,
       .group = kHttp,
       .doc = "Upper bound on requests in flight to the instance at once, over source and "
              "sink together. ServiceNow limits concurrent transactions per user; stay below it."},
      {.name = "snow.http.max.response.bytes",
       .type = T::kInt,
       .default_value = "67108864",
       .min = 1024,
       .max = int64_t{1} << 40,
       .group = kHttp,
       .doc = "Largest answer body accepted, after decompression. A bigger answer fails the "
              "request instead of exhausting memory; lower the page size if this trips."},
      {.name = "snow.http.user.agent",
       .group = kHttp,
       .doc = "User-Agent header; empty sends `snowcar/<version>`. Setting it helps the "
              "instance's administrators find this client in their transaction logs."},
      {.name = "snow.http.adaptive.throttling",
       .type = T::kBool,
       .default_value = "true",
       .group = kHttp,
       .doc = "Lower the request rate when the instance answers 429 or signals it is busy, and "
              "raise it again as answers succeed."},

      // --- Retries ----------------------------------------------------------------------------
      {.name = "snow.retry.max.attempts",
       .type = T::kInt,
       .default_value = "5",
       .min = 1,
       .max = 1000,
       .group = kRetry,
       .doc = "Attempts per logical call, the first one included: 1 means no retry."},
      {.name = "snow.retry.max.elapsed.ms",
       .type = T::kInt,
       .default_value = "300000",
       .min = 0,
       .max = kDayMs,
       .group = kRetry,
       .doc = "Time budget for all attempts of one call. No retry starts if its wait would end "
              "after the budget, including a wait asked for by `Retry-After`."},
      {.name = "snow.retry.initial.backoff.ms",
       .type = T::kInt,
       .default_value = "500",
       .min = 0,
       .max = kDayMs,
       .group = kRetry,
       .doc = "Upper bound of the first random wait; the bound doubles per attempt up to "
              "`snow.retry.max.backoff.ms`."},
      {.name = "snow.retry.max.backoff.ms",
       .type = T::kInt,
       .default_value = "30000",
       .min = 0,
       .max = kDayMs,
       .group = kRetry,
       .doc = "Largest random wait between attempts. A `Retry-After` from the instance is "
              "honoured even when longer."},

      // --- TLS --------------------------------------------------------------------------------
      {.name = "snow.tls.ca.file",
       .group = kTls,
       .doc = "PEM bundle of certificate authorities to trust instead of the system store, for "
              "instances or proxies behind a private CA."},
      {.name = "snow.tls.cert.file",
       .group = kTls,
       .doc = "Client certificate (PEM, or PKCS#12 with a `.p12`/`.pfx` name) for mutual TLS. "
              "Needs `snow.tls.key.file` unless the PKCS#12 file holds the key."},
      {.name = "snow.tls.key.file",
       .group = kTls,
       .doc = "Private key (PEM) of the client certificate."},
      {.name = "snow.tls.key.password",
       .type = T::kPassword,
       .group = kTls,
       .doc = "Pass phrase of an encrypted private key or PKCS#12 file."},
      {.name = "snow.tls.verify",
       .type = T::kBool,
       .default_value = "true",
       .group = kTls,
       .doc = "Check the server's certificate chain and host name. Setting `false` exposes "
              "credentials and data to anyone who can intercept the connection, so it is meant for "
              "test instances only; turning it off logs a warning at every start."},

      // --- Sidecar process --------------------------------------------------------------------
      {.name = "state.dir",
       .default_value = "/var/lib/snowcar",
       .check = CheckNotBlank,
       .group = kSidecar,
       .doc = "Directory of the RocksDB state store (cursors, dedup index, correlation cache). "
              "Keep it on a persistent volume: losing it means re-reading from the configured "
              "start timestamps. Only one process may use it at a time."},
      {.name = "state.dir.access",
       .type = T::kEnum,
       .default_value = "owner",
       .allowed = {"owner", "umask"},
       .group = kSidecar,
       .doc = "Who may read the state store, which holds your data (cursors, correlation "
              "cache). `owner`: a missing `state.dir` is created with mode 0700 and every file "
              "in it gets mode 0600 (the process umask is tightened to 077, since RocksDB "
              "creates its files throughout the store's life with the umask applied); an "
              "existing directory keeps its mode. `umask`: modes follow the process umask "
              "(0755 and 0644 under the common 022), for when another user or group must read "
              "the store, e.g. a backup agent with umask 027."},
      {.name = "socket.path",
       .default_value = "/var/run/snowcar/snowcar.sock",
       .check = CheckSocketPath,
       .group = kSidecar,
       .doc = "Unix socket serving the HTTP/JSON state API that `snowcar state` talks to. "
              "Created with mode 0660, so access follows the directory's group. At most 107 "
              "bytes (the size of a Unix socket address); removed when snowcar stops."},
      {.name = "threads",
       .type = T::kInt,
       .default_value = "0",
       .min = 0,
       .max = 256,
       .group = kSidecar,
       .doc = "Threads of the shared worker pool; 0 uses one per hardware thread. Network waits "
              "never hold a thread, so more threads help only with CPU-bound work."},
      {.name = "shutdown.timeout.ms",
       .type = T::kInt,
       .default_value = "30000",
       .min = 0,
       .max = kDayMs,
       .group = kSidecar,
       .doc = "On SIGTERM (or SIGINT, SIGHUP), how long in-flight work may take to finish and "
              "be committed before the process exits anyway. Keep it below the pod's "
              "termination grace period."},
      {.name = "log.level",
       .type = T::kEnum,
       .default_value = "info",
       .allowed = {"trace", "debug", "info", "warn", "error"},
       .group = kSidecar,
       .doc = "Least severe log level written to stderr."},
      {.name = "log.format",
       .type = T::kEnum,
       .default_value = "json",
       .allowed = {"json", "text"},
       .group = kSidecar,
       .doc = "One JSON object per line for log collectors, or plain text for people."},
      {.name = "socket.allowed.uids",
       .type = T::kList,
       .check = CheckUidList,
       .group = kSidecar,
       .doc = "Comma-separated numeric user ids allowed to use the Unix socket, checked with the "
              "kernel's peer credentials (`SO_PEERCRED`); any other process gets 403 and a "
              "warning naming its uid is logged. Empty (the default): everyone who can open "
              "the 0660 socket file."},
      {.name = "admin.listen",
       .check = CheckHostPort,
       .group = kSidecar,
       .doc = "`host:port` of an optional TCP listener serving only `GET /metrics`, "
              "`/v1/health` and `/v1/ready` (for Prometheus and HTTP probes), e.g. "
              "`127.0.0.1:9464`; port 0 lets the kernel pick one. Empty (the default) opens no "
              "TCP port; the Unix socket is always there. A host other than loopback needs "
              "`admin.listen.allow.remote=true`."},
      {.name = "admin.listen.allow.remote",
       .type = T::kBool,
       .default_value = "false",
       .group = kSidecar,
       .doc = "Allow `admin.listen` on an address other than loopback (e.g. `0.0.0.0`, so a "
              "Prometheus outside the pod can scrape). Off by default: metrics and health then "
              "reach only processes inside the pod, and the configuration check refuses a "
              "remote address."},
      {.name = "readiness.requires.instance",
       .type = T::kBool,
       .default_value = "true",
       .group = kSidecar,
       .doc = "Whether `/v1/ready` waits for the ServiceNow instance at start. `true`: a "
              "direction that cannot start because the instance cannot be reached (the "
              "source's first poll) keeps the sidecar not ready, and with it a pod whose "
              "readiness includes the sidecar. `false`: once a call to the instance gave up "
              "(within one retry cycle) such a direction no longer holds readiness back; "
              "`/v1/health` still reports the outage and the direction starts when the "
              "instance answers. Kafka is waited for either way. Once ready, the sidecar stays "
              "ready through later outages whatever this says."},
      {.name = "source.enabled",
       .type = T::kBool,
       .default_value = "true",
       .group = kSidecar,
       .doc = "Run the source (ServiceNow tables to Kafka topics)."},
      {.name = "sink.enabled",
       .type = T::kBool,
       .default_value = "true",
       .group = kSidecar,
       .doc = "Run the sink (Kafka command topics to ServiceNow writes)."},
  };
}

std::vector<OptionSpec> SinkTopicOptions() {
  return {
      // --- Sink -------------------------------------------------------------------------------
      {.name = "snow.sink.topics",
       .type = T::kList,
       .group = kSink,
       .doc = "Comma-separated Kafka topics the sink consumes commands from."},
      {.name = "topics",
       .alias_of = "snow.sink.topics",
       .group = kSink,
       .doc = "Kafka Connect's name for `snow.sink.topics`; give one or the other."},
  };
}

std::vector<OptionSpec> KafkaAndConnectOptions() {
  return {
      // --- Kafka client -----------------------------------------------------------------------
      {.name = "kafka.<property>",
       .allow_line_breaks = true,  // PEM text: kafka.ssl.key.pem, kafka.ssl.certificate.pem
       .group = kKafka,
       .doc = "Handed to librdkafka as `<property>` without the `kafka.` prefix, e.g. "
              "`kafka.bootstrap.servers` or `kafka.security.protocol`. Names and values are "
              "checked against the installed librdkafka by `snowcar config check` and before "
              "start. Secret, so never shown in `config print`, messages or logs: every property "
              "librdkafka keeps secret (`sasl.username`, `sasl.password`, "
              "`sasl.oauthbearer.config`, `sasl.oauthbearer.client.secret`, `ssl.key.location`, "
              "`ssl.key.password`, `ssl.key.pem`, `ssl.ca.pem`, `ssl.keystore.password`), the "
              "Java client's `sasl.jaas.config`, and any property whose last part names a "
              "password, secret or token. Unlike other keys, values may hold line breaks, for "
              "PEM text given inline (`kafka.ssl.key.pem`)."},

      {.name = "kafka.group.instance.id",
       .check = CheckGroupInstanceId,
       .group = kKafka,
       .doc = "Static group membership (KIP-345) for the sink's consumer group and the source's "
              "table group (`source.group.id`): a replica that restarts with the same id gets "
              "its partitions back at once instead of after `kafka.session.timeout.ms`, and a "
              "rolling update causes no rebalance. The id names the replica, so every replica "
              "needs its own: two running members with one id fence each other. Empty (the "
              "default): the value of the `POD_NAME` environment variable when it is set (a "
              "StatefulSet pod's name, given through the downward API as k8s/base does), "
              "otherwise static membership is off. `off` turns it off even when `POD_NAME` is "
              "set. A static member does not leave its groups when it stops: its partitions "
              "wait for it to come back, or for the session timeout (docs/scale-out.md)."},

      // --- Kafka Connect compatibility ---------------------------------------------------------
      {.name = "name", .ignored = true, .group = kConnect, .doc = "Connector name."},
      {.name = "connector.class",
       .ignored = true,
       .group = kConnect,
       .doc = "snowcar is not loaded by a Connect worker, so there is no class to pick."},
      {.name = "tasks.max",
       .ignored = true,
       .group = kConnect,
       .doc = "Parallelism comes from `threads`, one poller per table and one lane per "
              "partition."},
      {.name = "key.converter",
       .rewritten = true,
       .group = kConnect,
       .doc = "Sets `key.format`: `io.confluent.connect.avro.AvroConverter` is `avro`, "
              "`io.confluent.connect.json.JsonSchemaConverter` is `json_schema`, "
              "`io.confluent.connect.protobuf.ProtobufConverter` is `protobuf`, "
              "`org.apache.kafka.connect.json.JsonConverter` is `json` and "
              "`org.apache.kafka.connect.storage.StringConverter` is `string`. Any other "
              "converter is an error naming it."},
      {.name = "key.converter.<setting>",
       .rewritten = true,
       .group = kConnect,
       .doc = "Settings of the key converter. `schema.registry.url`, `basic.auth.user.info`, "
              "`basic.auth.credentials.source`, `schema.registry.ssl.*` and "
              "`key.subject.name.strategy` set the `schema.registry.*` key of that name; the "
              "others are noted and ignored."},
      {.name = "value.converter",
       .rewritten = true,
       .group = kConnect,
       .doc = "Sets `value.format`, as `key.converter` sets `key.format` "
              "(`org.apache.kafka.connect.storage.StringConverter` is `json` here)."},
      {.name = "value.converter.<setting>",
       .rewritten = true,
       .group = kConnect,
       .doc = "Settings of the value converter, carried over as those of `key.converter` "
              "(`value.subject.name.strategy` included). The key and value converters may "
              "both name the registry, with the same URL."},
      {.name = "header.converter",
       .ignored = true,
       .group = kConnect,
       .doc = "Headers are plain strings."},
      {.name = "header.converter.<setting>",
       .ignored = true,
       .group = kConnect,
       .doc = "Settings of the header converter."},
      {.name = "transforms",
       .ignored = true,
       .group = kConnect,
       .doc = "Single message transforms are not run; shape records in the producer or "
              "consumer instead."},
      {.name = "transforms.<setting>",
       .ignored = true,
       .group = kConnect,
       .doc = "Settings of a transform."},
      {.name = "predicates",
       .ignored = true,
       .group = kConnect,
       .doc = "Predicates only guard transforms."},
      {.name = "predicates.<setting>",
       .ignored = true,
       .group = kConnect,
       .doc = "Settings of a predicate."},
      {.name = "errors.tolerance",
       .ignored = true,
       .group = kConnect,
       .doc = "Error handling is set by the sink's own keys (`behavior.on.api.errors`)."},
      {.name = "errors.log.enable",
       .ignored = true,
       .group = kConnect,
       .doc = "Failures are always logged."},
      {.name = "errors.log.include.messages",
       .ignored = true,
       .group = kConnect,
       .doc = "Logs never include record contents."},
      {.name = "errors.retry.timeout",
       .ignored = true,
       .group = kConnect,
       .doc = "Retries are bounded by `snow.retry.max.elapsed.ms`."},
      {.name = "errors.retry.delay.max.ms",
       .ignored = true,
       .group = kConnect,
       .doc = "Waits are bounded by `snow.retry.max.backoff.ms`."},
      {.name = "errors.deadletterqueue.context.headers.enable",
       .ignored = true,
       .group = kConnect,
       .doc = "Dead-letter records always carry the error context headers."},
      {.name = "errors.deadletterqueue.topic.replication.factor",
       .ignored = true,
       .group = kConnect,
       .doc = "The dead-letter topic is not created by snowcar."},
      {.name = "config.action.reload",
       .ignored = true,
       .group = kConnect,
       .doc = "Configuration is read once at start; restart to change it."},
      {.name = "topics.regex",
       .ignored = true,
       .check = RefuseTopicsRegex,
       .group = kConnect,
       .doc = "Not supported, and refused at start: list the topics in `snow.sink.topics`."},
  };
}

// Documentation order: core and sidecar keys, the source, the sink, then Kafka and Connect, then
// the keys of Confluent's connectors.
std::vector<OptionSpec> BuildTable() {
  std::vector<OptionSpec> table = CoreOptions();
  AppendSourceOptions(table);
  for (auto& spec : SinkTopicOptions()) table.push_back(std::move(spec));
  AppendSinkOptions(table);
  AppendRegistryOptions(table);
  AppendOriginOptions(table);
  for (auto& spec : KafkaAndConnectOptions()) table.push_back(std::move(spec));
  AppendExactlyOnceOptions(table);
  AppendTopicCreationOptions(table);
  AppendConfluentOptions(table);
  return table;
}

}  // namespace

const std::vector<OptionSpec>& Options() {
  static const std::vector<OptionSpec> table = BuildTable();
  return table;
}

}  // namespace snowcar::config
