// SPDX-License-Identifier: Apache-2.0
// Renders the migration section of docs/configuration.md (see migration_table.h).
//
// The key list is written down here, once, because the option table cannot tell a key the
// reference connectors also have from one snowcar added (state.dir, socket.path, ...). What
// snowcar does with each key is not written down: it is read from the option table, so the
// section cannot claim a key is accepted after the table stopped declaring it.
#include "migration_table.h"

#include "option_table_parts.h"
#include "snowcar/config/options.h"

namespace snowcar::config {

const std::vector<ReferenceKey>& ReferenceKeys() {
  static const std::vector<ReferenceKey> keys = {
      // Instance, authentication, HTTP, retries.
      {"snow.url"},
      {"snow.auth.type"},
      {"snow.auth.username"},
      {"snow.auth.password"},
      {"snow.oauth.grant.type"},
      {"snow.oauth.token.url"},
      {"snow.oauth.client.id"},
      {"snow.oauth.client.secret"},
      {"snow.oauth.scope"},
      {"snow.http.connect.timeout.ms"},
      {"snow.http.request.timeout.ms"},
      {"snow.http.proxy.url"},
      {"snow.http.proxy.username"},
      {"snow.http.proxy.password"},
      {"snow.http.max.concurrent.requests",
       "One budget per instance for the whole sidecar: when both directions run in one process "
       "they share it."},
      {"snow.http.max.response.bytes"},
      {"snow.http.user.agent"},
      {"snow.http.adaptive.throttling"},
      {"snow.retry.max.attempts"},
      {"snow.retry.max.elapsed.ms"},
      {"snow.retry.initial.backoff.ms"},
      {"snow.retry.max.backoff.ms"},
      // TLS: files instead of Java keystores.
      {"snow.tls.ca.file",
       "Takes the place of the reference's Java truststore settings: a PEM bundle of CAs."},
      {"snow.tls.cert.file",
       "Takes the place of the reference's Java keystore settings: a PEM or PKCS#12 file."},
      {"snow.tls.key.file"},
      {"snow.tls.key.password"},
      {"snow.tls.verify", "`false` is logged as a warning at every start."},
      // Source.
      {"snow.tables"},
      {"snow.table.<alias>.name"},
      {"snow.table.<alias>.topic"},
      {"snow.table.<alias>.start.timestamp"},
      {"snow.table.<alias>.timestamp.field"},
      {"snow.table.<alias>.sys.id.field"},
      {"snow.table.<alias>.query"},
      {"snow.table.<alias>.fields"},
      {"snow.table.<alias>.display.value"},
      {"snow.table.<alias>.exclude.reference.link"},
      {"snow.table.<alias>.query.domain"},
      {"snow.table.<alias>.batch.size"},
      {"snow.table.<alias>.poll.interval.ms"},
      {"snow.source.poll.interval.ms"},
      {"snow.source.batch.size"},
      {"snow.source.overlap.seconds",
       "With `0`, a stop in the middle of a second resumes at the next row of that second; the "
       "reference skipped the rest of the second."},
      {"snow.source.safety.lag.seconds"},
      {"snow.source.dedup.window.records",
       "The index lives in `state.dir`, so after a restart the re-read overlap is not emitted "
       "again; the reference kept it in memory and lost it at every restart."},
      {"snow.source.bad.row.behavior"},
      {"snow.source.startup.probe"},
      {"snow.source.schema.mode",
       "`typed` reads the column types from `sys_dictionary` and writes `value.format` "
       "(`json_typed` unless set)."},
      {"snow.source.emit.envelope"},
      // Sink.
      {"snow.sink.routing.mode"},
      {"snow.sink.table"},
      {"snow.sink.topic.<topic>.table"},
      {"snow.sink.table.header"},
      {"snow.sink.table.allowlist"},
      {"snow.sink.operation.mode"},
      {"snow.sink.operation.fixed"},
      {"snow.sink.operation.header"},
      {"snow.sink.operation.header.required"},
      {"snow.sink.update.method"},
      {"snow.sink.sys.id.key.field"},
      {"snow.sink.sys.id.value.field"},
      {"snow.sink.sys.id.precedence"},
      {"snow.sink.null.behavior"},
      {"snow.sink.unknown.field.behavior"},
      {"snow.sink.nested.behavior"},
      {"snow.sink.nested.flatten.delimiter"},
      {"snow.sink.field.rename"},
      {"snow.sink.field.allowlist"},
      {"snow.sink.field.denylist"},
      {"snow.sink.max.in.flight"},
      {"snow.sink.create.ambiguous.behavior"},
      {"snow.sink.correlation.field"},
      {"snow.sink.not.found.behavior"},
      {"behavior.on.api.errors"},
      {"snow.sink.reporter.success.topic"},
      {"snow.sink.reporter.error.topic"},
      {"snow.sink.reporter.include.request.body"},
      {"errors.deadletterqueue.topic.name",
       "snowcar does not create the topic: it must exist, as with any producer."},
      // Kafka Connect's topic creation for source connectors (KIP-158).
      {"topic.creation.enable",
       "A worker key in Connect; here it sits in the same file as the rest."},
      {"topic.creation.default.replication.factor"},
      {"topic.creation.default.partitions"},
      {"topic.creation.groups"},
      {"topic.creation.<group>.<setting>",
       "Applies to the source's table topics, created before a table's first produce; an "
       "existing topic is left as it is."},
  };
  return keys;
}

namespace {

constexpr std::string_view kMigrationIntro = R"(## Migrating from the Kafka Connect connectors

Two families of Kafka Connect ServiceNow connectors are covered: the open-source source and
sink pair whose keys snowcar took over (`snow.*`, the reference connectors of this page), and
Confluent's ServiceNow Source and ServiceNow Sink connectors (`servicenow.*`, below). A
properties file written for any of them can be given to `snowcar run` as it is. The first
table lists every key the reference connectors and the Connect framework define, and what
snowcar does with it:

- **accepted**: same name and meaning; its entry above gives the type, default and bounds;
- **accepted, with a note**: accepted, but something about it differs; the note says what;
- **not applicable**: accepted so the file loads, without effect; each one given is logged
  as a note at start, and a few values that would promise what snowcar does not do are
  refused (the note names them).

What the Connect worker used to supply has to be added: `kafka.bootstrap.servers` and any
other Kafka client setting, as `kafka.*` keys. The sidecar's own keys (`state.dir`,
`socket.path`, ...) have defaults. Secrets can move out of the file into mounted files with
`<key>.file`.

)";

constexpr std::string_view kConfluentIntro = R"(
### Confluent's ServiceNow connectors

The properties files of Confluent's ServiceNow Source and ServiceNow Sink connectors run as
they are too. Their keys that only differ in name are aliases; `servicenow.table`,
`servicenow.since`, `kafka.topic`, `poll.interval.s` and `retry.max.times` are rewritten onto
snowcar's keys when the file is loaded, and messages about the result name the key they came
from. Giving a Confluent key together with the snowcar key it sets is an error. A source
file's table gets its own name as its alias, so `servicenow.table=incident` is configured
further with `snow.table.incident.*` keys and appears as `incident` on the socket API.

)";

// How to carry what the Connect worker kept over to snowcar, and what its error settings
// become.
constexpr std::string_view kMigrationNotes = R"(
### Moving a running connector

- **Keep a sink's committed offsets.** A Connect sink connector commits its offsets under
  the consumer group `connect-<name>`, where `<name>` is the connector's `name`. With
  `kafka.group.id=connect-<name>` snowcar's sink goes on from those offsets instead of
  starting over. A sink file (its `connector.class` ends in `SinkConnector`, or it has
  `topics`) that has `name` but no `kafka.group.id` gets exactly that group, and a start-up
  note says so; give `kafka.group.id` to choose another. Stop the connector first: two
  consumers in one group share the partitions. A new group starts at
  `kafka.auto.offset.reset` (earliest by default) and re-applies what the topic still holds.
- **A source's position is not carried over.** Connect keeps a source's position in its own
  offsets topic, which snowcar does not read. Set the table's start
  (`snow.table.<alias>.start.timestamp`, or `servicenow.since` in a Confluent file) to a
  moment shortly before the connector stopped; rows in between are read again, and consumers
  see them as the at-least-once repeats they already handle.
- **`errors.tolerance=all`** told Connect to skip records it could not convert or write.
  snowcar's sink decides per failure class and then by `behavior.on.api.errors`: the
  equivalent of `all` is `behavior.on.api.errors=log` (record the failure, move on), with
  `errors.deadletterqueue.topic.name` to keep the failed records; `ignore` moves on without
  a log line. `errors.tolerance=none` corresponds to the default, `fail`.
- **Direction.** A file whose `connector.class` ends in `SourceConnector` runs only the
  source, one ending in `SinkConnector` only the sink, unless `source.enabled` or
  `sink.enabled` says otherwise; the start-up notes say which was turned off.
)";

std::string Code(std::string_view name) { return "`" + std::string(name) + "`"; }

void Row(std::string& out, std::string_view key, std::string_view status, std::string_view note) {
  out += "| " + Code(key) + " | " + std::string(status) + " | " + std::string(note) + " |\n";
}

}  // namespace

std::string RenderMigrationTable() {
  std::string out(kMigrationIntro);
  out += "| key | status | note |\n|---|---|---|\n";
  for (const ReferenceKey& key : ReferenceKeys()) {
    const OptionSpec* spec = FindOption(key.name);
    if (spec == nullptr || spec->name != key.name) {
      Row(out, key.name, "**refused**", "Not in the option table: start-up fails on it.");
    } else if (!key.note.empty()) {
      Row(out, key.name, "accepted, with a note", key.note);
    } else {
      Row(out, key.name, "accepted", "");
    }
  }
  // The Connect framework's keys: whatever the option table marks as an alias or as ignored.
  for (const OptionSpec& spec : Options()) {
    if (spec.group == kConfluent) continue;  // their own section, below
    if (!spec.alias_of.empty()) {
      Row(out, spec.name, "accepted, with a note",
          "Another name for " + Code(spec.alias_of) + "; give one or the other.");
    } else if (spec.ignored) {
      Row(out, spec.name, "not applicable", spec.doc);
    }
  }
  out += kConfluentIntro;
  out += "| key | status | note |\n|---|---|---|\n";
  for (const OptionSpec& spec : Options()) {
    if (spec.group != kConfluent) continue;
    if (!spec.alias_of.empty()) {
      Row(out, spec.name, "accepted, with a note", "Another name for " + Code(spec.alias_of) + ".");
    } else if (spec.rewritten) {
      Row(out, spec.name, "accepted, rewritten", spec.doc);
    } else if (spec.ignored) {
      Row(out, spec.name, "not applicable", spec.doc);
    }
  }
  out += kMigrationNotes;
  return out;
}

}  // namespace snowcar::config
