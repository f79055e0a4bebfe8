// SPDX-License-Identifier: Apache-2.0
#include "cross_checks.h"

#include <charconv>
#include <cstdint>

namespace snowcar::config {
namespace {

// Read access for one rule. Reading a key whose value was rejected taints the view: that
// key holds its default instead of what the user meant, so the rule's verdict is dropped
// rather than reported as a second, misleading problem.
class View {
 public:
  explicit View(const CrossCheckInput& in) : in_(in) {}
  const std::string& Get(std::string_view key) const {
    static const std::string kEmpty;
    if (in_.rejected.count(key) != 0) tainted_ = true;
    const auto it = in_.values.find(key);
    return it == in_.values.end() ? kEmpty : it->second;
  }
  bool tainted() const { return tainted_; }
  bool Has(std::string_view key) const { return !Get(key).empty(); }
  // Has a value, or was given one that the first pass already reported as invalid (so a
  // "required" message would only repeat that).
  bool HasOrRejected(std::string_view key) const {
    return in_.rejected.count(key) != 0 || Has(key);
  }
  bool True(std::string_view key) const { return Get(key) == "true"; }
  int64_t Int(std::string_view key) const { return Has(key) ? std::stoll(Get(key)) : 0; }

 private:
  const CrossCheckInput& in_;
  mutable bool tainted_ = false;
};

using Rule = void (*)(const View&, std::vector<std::string>& errors,
                      std::vector<std::string>& notes);

// snow.url and credentials matter only when something talks to ServiceNow.
void CheckInstance(const View& v, std::vector<std::string>& errors, std::vector<std::string>&) {
  const bool source = v.True("source.enabled");
  const bool sink = v.True("sink.enabled");
  if (!source && !sink) return;
  const std::string why = std::string(source && sink ? "source.enabled and sink.enabled are"
                                      : source       ? "source.enabled is"
                                                     : "sink.enabled is") +
                          " true";
  if (!v.HasOrRejected("snow.url")) {
    errors.push_back("snow.url is required because " + why +
                     " (e.g. snow.url=https://acme.service-now.com); set source.enabled=false "
                     "and sink.enabled=false to run the sidecar without ServiceNow");
  }
  const auto need = [&](std::string_view key, std::string_view because) {
    if (!v.HasOrRejected(key)) {
      errors.push_back(std::string(key) + " is required because " + std::string(because) + " and " +
                       why);
    }
  };
  if (v.Get("snow.auth.type") == "basic") {
    need("snow.auth.username", "snow.auth.type=basic");
    need("snow.auth.password", "snow.auth.type=basic");
  } else {
    need("snow.oauth.client.id", "snow.auth.type=oauth2");
    need("snow.oauth.client.secret", "snow.auth.type=oauth2");
    if (v.Get("snow.oauth.grant.type") == "password") {
      need("snow.auth.username", "snow.oauth.grant.type=password");
      need("snow.auth.password", "snow.oauth.grant.type=password");
    }
  }
}

void CheckBackoff(const View& v, std::vector<std::string>& errors, std::vector<std::string>&) {
  if (v.Int("snow.retry.initial.backoff.ms") > v.Int("snow.retry.max.backoff.ms")) {
    errors.push_back("snow.retry.initial.backoff.ms (" + v.Get("snow.retry.initial.backoff.ms") +
                     ") must not exceed snow.retry.max.backoff.ms (" +
                     v.Get("snow.retry.max.backoff.ms") + ")");
  }
}

void CheckTls(const View& v, std::vector<std::string>& errors, std::vector<std::string>& notes) {
  const std::string& cert = v.Get("snow.tls.cert.file");
  const bool pkcs12 = cert.ends_with(".p12") || cert.ends_with(".pfx");
  if (!cert.empty() && !pkcs12 && !v.Has("snow.tls.key.file")) {
    errors.push_back(
        "snow.tls.cert.file is a PEM certificate, so snow.tls.key.file must name "
        "its private key");
  }
  if (cert.empty() && v.Has("snow.tls.key.file")) {
    errors.push_back(
        "snow.tls.key.file is set without snow.tls.cert.file; give both for "
        "client-certificate authentication");
  }
  if (v.Has("snow.tls.key.password") && cert.empty()) {
    errors.push_back("snow.tls.key.password is set without snow.tls.cert.file");
  }
  if (!v.True("snow.tls.verify")) {
    notes.push_back(
        "snow.tls.verify=false: server certificates and host names are NOT checked; "
        "anyone on the network path can read the credentials and data");
  }
}

void CheckProxy(const View& v, std::vector<std::string>& errors, std::vector<std::string>&) {
  if (v.Has("snow.http.proxy.url")) return;
  for (std::string_view key : {"snow.http.proxy.username", "snow.http.proxy.password"}) {
    if (v.Has(key)) errors.push_back(std::string(key) + " is set without snow.http.proxy.url");
  }
}

// The registry formats need a registry; a registry URL must be one libcurl can use.
void CheckRegistry(const View& v, std::vector<std::string>& errors,
                   std::vector<std::string>& notes) {
  const std::string& url = v.Get("schema.registry.url");
  for (std::string_view key : {"value.format", "key.format"}) {
    const std::string& format = v.Get(key);
    if ((format == "avro" || format == "json_schema" || format == "protobuf") && url.empty()) {
      errors.push_back(std::string(key) + "=" + format +
                       " needs schema.registry.url (value.converter.schema.registry.url in a "
                       "Kafka Connect file)");
    }
  }
  if (!url.empty() && !url.starts_with("http://") && !url.starts_with("https://")) {
    errors.push_back("schema.registry.url must start with http:// or https://");
  }
  if (!url.empty() && v.Get("schema.registry.ssl.endpoint.identification.algorithm") == "none") {
    notes.push_back(
        "schema.registry.ssl.endpoint.identification.algorithm=none: the Schema "
        "Registry's certificate is not verified");
  }
}

// librdkafka's default transaction.timeout.ms, which the sidecar does not change.
constexpr int64_t kKafkaTransactionTimeoutMs = 60000;

// Exactly-once needs what no check here can see: say what the cluster and the readers need.
void CheckExactlyOnce(const View& v, std::vector<std::string>& errors,
                      std::vector<std::string>& notes) {
  const std::string& mode = v.Get("exactly.once.source.support");
  if (mode.empty() || mode == "disabled" || !v.True("source.enabled")) return;
  // The coordinator aborts a transaction open longer than transaction.timeout.ms and the
  // producer is fenced by that: an interval near it would lose the table at every commit.
  // A transaction lasts the interval plus the page's acknowledgements and the commit's round
  // trip, so half the timeout is left for those.
  // A kafka.* value is librdkafka's to check (a bad one is reported when the clients are
  // made): only a number is taken here.
  const std::string& given = v.Get("kafka.transaction.timeout.ms");
  int64_t timeout = kKafkaTransactionTimeoutMs;
  if (const auto [end, ec] = std::from_chars(given.data(), given.data() + given.size(), timeout);
      ec != std::errc() || end != given.data() + given.size()) {
    timeout = kKafkaTransactionTimeoutMs;
  }
  if (v.Get("transaction.boundary") == "interval" &&
      v.Int("transaction.boundary.interval.ms") * 2 > timeout) {
    errors.push_back("transaction.boundary.interval.ms (" +
                     v.Get("transaction.boundary.interval.ms") +
                     ") must be at most half of kafka.transaction.timeout.ms (" +
                     std::to_string(timeout) + (given.empty() ? ", librdkafka's default" : "") +
                     "): the broker aborts a transaction that stays open longer, and the table "
                     "stops; lower the interval or raise kafka.transaction.timeout.ms");
  }
  notes.push_back(
      "exactly.once.source.support=" + mode +
      ": needs a Kafka cluster with transactions (the embedded broker has none: `requested` "
      "then runs at least once, `required` refuses to start), WRITE and DESCRIBE on the "
      "TransactionalIds snowcar-source.<instance host>.<alias> (and <alias>.deletes for a "
      "table with deletes=audit), IdempotentWrite on the cluster, the compacted topic " +
      v.Get("snow.source.exactly.once.state.topic") +
      " (READ, WRITE, DESCRIBE; created when absent if allowed), and consumers of the tables' "
      "topics with isolation.level=read_committed (read_uncommitted readers also see aborted "
      "records)");
  // Parallel ranges commit the cursor over finished ranges, out of page order, which a
  // transaction per page cannot carry: say so rather than silently read slower.
  if (v.Int("snow.source.backfill.parallelism") > 1) {
    notes.push_back(
        "snow.source.backfill.parallelism=" + v.Get("snow.source.backfill.parallelism") +
        " is taken as 1 with exactly.once.source.support=" + mode +
        ": a backlog is read by one sweep, one transaction per page, since "
        "parallel ranges move the cursor out of page order");
  }
}

// Rules whose verdict is a warning: the configuration works, but not as well as it could.
using WarnRule = void (*)(const View&, std::vector<std::string>& warnings);

// A revoke that stops waiting before a call on the wire must have ended gives the partition
// up while that call may still land, after the next owner's writes (docs/sink.md).
void CheckRevokeWait(const View& v, std::vector<std::string>& warnings) {
  if (!v.True("sink.enabled")) return;
  if (v.Int("snow.sink.revoke.timeout.ms") < v.Int("snow.http.request.timeout.ms")) {
    warnings.push_back(
        "snow.sink.revoke.timeout.ms (" + v.Get("snow.sink.revoke.timeout.ms") +
        ") is below snow.http.request.timeout.ms (" + v.Get("snow.http.request.timeout.ms") +
        "): a rebalance may give a partition up while one of its writes is still on the wire, "
        "and that write may reach the instance after the next owner's; raise the former or "
        "lower the latter");
  }
}

}  // namespace

void RunCrossChecks(const CrossCheckInput& in, std::vector<std::string>& errors,
                    std::vector<std::string>& notes, std::vector<std::string>& warnings) {
  static constexpr Rule kRules[] = {CheckInstance, CheckBackoff,  CheckTls,
                                    CheckProxy,    CheckRegistry, CheckExactlyOnce};
  for (Rule rule : kRules) {
    const View view(in);
    std::vector<std::string> rule_errors;
    std::vector<std::string> rule_notes;
    rule(view, rule_errors, rule_notes);
    if (view.tainted()) continue;
    errors.insert(errors.end(), rule_errors.begin(), rule_errors.end());
    notes.insert(notes.end(), rule_notes.begin(), rule_notes.end());
  }
  static constexpr WarnRule kWarnRules[] = {CheckRevokeWait};
  for (WarnRule rule : kWarnRules) {
    const View view(in);
    std::vector<std::string> rule_warnings;
    rule(view, rule_warnings);
    if (view.tainted()) continue;
    warnings.insert(warnings.end(), rule_warnings.begin(), rule_warnings.end());
  }
}

}  // namespace snowcar::config
