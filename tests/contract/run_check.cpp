// SPDX-License-Identifier: Apache-2.0
#include "run_check.h"

#include <boost/json.hpp>
#include <cstdlib>

#include "checker/observe.h"
#include "checker/sink_check.h"
#include "checker/source_check.h"

namespace snowcar::contract {
namespace {

std::string Field(const boost::json::object& o, const char* name) {
  const auto* v = o.if_contains(name);
  return v != nullptr && v->is_string() ? std::string(v->as_string()) : std::string();
}

std::vector<FinalRow> Final(const std::vector<boost::json::object>& rows) {
  std::vector<FinalRow> out;
  out.reserve(rows.size());
  for (const auto& r : rows) {
    out.push_back({Field(r, "sys_id"), std::atoll(Field(r, "sys_mod_count").c_str()),
                   Field(r, "sys_updated_by")});
  }
  return out;
}

SourceFormat FormatOf(const Features& f) {
  SourceFormat s;
  const std::string& fmt = f.at("format");
  s.value = fmt == "json_typed"    ? ValueFormat::kJsonTyped
            : fmt == "avro"        ? ValueFormat::kAvro
            : fmt == "json_schema" ? ValueFormat::kJsonSchema
                                   : ValueFormat::kJson;
  s.envelope = f.at("envelope") == "true";
  return s;
}

void Fail(Verdict& v, const std::string& why) {
  // The checker could not gather its inputs: nothing can be concluded.
  v.void_check = true;
  v.void_reason += (v.void_reason.empty() ? "" : "; ") + why;
}

}  // namespace

Verdict CheckRun(const Features& f, const Endpoints& ep, const Schedule& schedule,
                 const std::set<std::string>& hidden, RunFacts* facts) {
  Verdict verdict;
  auto inc_rows = EmulatorRows(ep.emulator, "incident");
  auto ctr_rows = EmulatorRows(ep.emulator, kSinkTable);
  auto journal = EmulatorJournal(ep.emulator);
  // Exactly-once is a promise to read_committed readers (records of aborted transactions are
  // on the topic, and a read_uncommitted reader sees them).
  auto inc = ReadTopic(ep.bootstrap, ep.inc_topic, std::chrono::seconds(30), ExactlyOnce(f));
  auto ctr = ReadTopic(ep.bootstrap, ep.ctr_topic, std::chrono::seconds(30), ExactlyOnce(f));
  auto cmd = ReadTopic(ep.bootstrap, ep.cmd_topic);
  auto ok = ReadTopic(ep.bootstrap, ep.ok_topic);
  auto committed = GroupOffsets(ep.bootstrap, ep.sink_group, ep.cmd_topic, kSinkPartitions);
  for (const Status& s : {inc_rows.status(), ctr_rows.status(), journal.status(), inc.status(),
                          ctr.status(), cmd.status(), ok.status(), committed.status()}) {
    if (!s.ok()) Fail(verdict, s.ToString());
  }
  if (verdict.void_check) return verdict;
  if (!journal->complete) Fail(verdict, "the emulator's journal dropped its oldest entries");

  const std::string registry = ep.registry;
  SchemaLookup lookup = [registry](int32_t id) { return RegistrySchema(registry, id); };

  // incident: the writer's rows and the deletions the run made.
  SourceExpectations inc_want;
  inc_want.rows = Final(*inc_rows);
  std::set<std::string> existing;
  for (const auto& r : inc_want.rows) existing.insert(r.sys_id);
  for (const auto& [id, n] : AcceptedWrites(*journal, "incident", "DELETE")) {
    if (!existing.count(id)) inc_want.deleted.insert(id);
  }
  inc_want.deletes_audit = DeletesAudit(f);
  inc_want.deletes_reconcile = DeletesReconcile(f);
  inc_want.duplicate_bound = SourceDuplicateBound(f, schedule);
  inc_want.sink_user = kSinkUser;  // the sink never writes incident: no record may be marked
  inc_want.hidden = hidden;
  SourceDecoder inc_decoder(FormatOf(f), lookup);
  verdict.Merge(CheckSourceTopic(*inc, inc_decoder, inc_want));

  // u_contract: the sink's rows, read back by the source (echo).
  SourceExpectations ctr_want;
  ctr_want.rows = Final(*ctr_rows);
  ctr_want.suppress_sink_versions = f.at("echo") == "suppress";
  ctr_want.sink_user = kSinkUser;
  ctr_want.duplicate_bound = SourceDuplicateBound(f, schedule);
  SourceDecoder ctr_decoder(FormatOf(f), lookup);
  verdict.Merge(CheckSourceTopic(*ctr, ctr_decoder, ctr_want));

  // The sink: commands, success reports, committed offsets, journal, final values.
  SinkObservation sink;
  for (const auto& r : cmd->records) {
    boost::system::error_code ec;
    auto v = boost::json::parse(r.value.value_or(""), ec);
    if (ec || !v.is_object() || !r.key) continue;
    sink.commands.push_back(
        {r.partition, r.offset, *r.key, Field(v.as_object(), "short_description")});
  }
  for (const auto& r : ok->records) {
    boost::system::error_code ec;
    auto v = boost::json::parse(r.value.value_or(""), ec);
    if (ec || !v.is_object()) continue;
    const auto& o = v.as_object();
    const auto* src = o.if_contains("source");
    const auto* mod = o.if_contains("sys_mod_count");
    if (src == nullptr || !src->is_object()) continue;
    SinkReport rep;
    rep.partition = static_cast<int32_t>(src->as_object().at("partition").to_number<int64_t>());
    rep.offset = src->as_object().at("offset").to_number<int64_t>();
    rep.sys_id = Field(o, "sys_id");
    if (mod != nullptr && mod->is_number()) rep.mod_count = mod->to_number<int64_t>();
    if (mod != nullptr && mod->is_string()) rep.mod_count = std::atoll(mod->as_string().c_str());
    sink.reports.push_back(rep);
  }
  for (const auto& row : *ctr_rows)
    sink.final_values[Field(row, "sys_id")] = Field(row, "short_description");
  sink.applied_writes = AcceptedWrites(*journal, kSinkTable, "PATCH");
  sink.committed = *committed;
  verdict.Merge(CheckSink(sink));

  if (facts != nullptr) {
    facts->source_records = static_cast<int64_t>(inc->records.size() + ctr->records.size());
    facts->commands = static_cast<int64_t>(sink.commands.size());
    facts->reports = static_cast<int64_t>(sink.reports.size());
    facts->deletions = static_cast<int64_t>(inc_want.deleted.size());
  }
  return verdict;
}

int64_t AbortedRecords(const Endpoints& ep, const RunFacts& facts) {
  auto inc = ReadTopic(ep.bootstrap, ep.inc_topic);
  auto ctr = ReadTopic(ep.bootstrap, ep.ctr_topic);
  if (!inc.ok() || !ctr.ok()) return -1;
  return static_cast<int64_t>(inc->records.size() + ctr->records.size()) - facts.source_records;
}

}  // namespace snowcar::contract
