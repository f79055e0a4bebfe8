// Renders the migration section of docs/configuration.md (see migration_table.h).
//
// The key list is written down here, once, because the option table cannot tell a key the
// reference connectors also have from one snowcar added (state.dir, socket.path, ...). What
// snowcar does with each key is not written down: it is read from the option table, so the
// section cannot claim a key is accepted after the table stopped declaring it.
#include "migration_table.h"

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
       "`typed` is refused at start: it needs a schema registry, which snowcar does not use."},
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
  };
  return keys;
}

namespace {

constexpr std::string_view kMigrationIntro = R"(## Migrating from the Kafka Connect connectors

A properties file written for the reference ServiceNow source or sink connector can be given
to `snowcar run` as it is. The table lists every key those connectors and the Connect
framework define, and what snowcar does with it:

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
    if (!spec.alias_of.empty()) {
      Row(out, spec.name, "accepted, with a note",
          "Another name for " + Code(spec.alias_of) + "; give one or the other.");
    } else if (spec.ignored) {
      Row(out, spec.name, "not applicable", spec.doc);
    }
  }
  return out;
}

}  // namespace snowcar::config
