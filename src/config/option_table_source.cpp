// SPDX-License-Identifier: Apache-2.0
// The source's keys in the option table; see include/snowcar/config/options.h.
//
// Per-table keys are families (`snow.table.<alias>.name`, ...). The loader accepts any
// member and checks each value on its own; which aliases exist, and whether every listed
// alias has its name and topic, is checked by SourceSettings::FromConfig (src/source), which
// sees all the keys together.
#include "option_table_parts.h"
#include "value_checks.h"

namespace snowcar::config {
namespace {

using T = OptionType;

constexpr std::string_view kSource = "Source";
constexpr int64_t kMaxPage = 50000;

}  // namespace

void AppendSourceOptions(std::vector<OptionSpec>& table) {
  std::vector<OptionSpec> source = {
      {.name = "snow.tables",
       .type = T::kList,
       .check = CheckTableAliasList,
       .group = kSource,
       .doc = "Comma-separated aliases of the tables the source reads, e.g. `inc,chg`. An alias "
              "is lower-case letters, digits and `_`, and names the table in every other key "
              "(`snow.table.<alias>.*`), in the state store and on the socket API. Each alias "
              "needs `snow.table.<alias>.name` and `snow.table.<alias>.topic`."},
      {.name = "snow.table.<alias>.name",
       .group = kSource,
       .doc = "The ServiceNow table (or database view) to read, e.g. `incident`. Required for "
              "every alias in `snow.tables`."},
      {.name = "snow.table.<alias>.topic",
       .group = kSource,
       .doc = "Kafka topic that receives the table's rows, one record per row version. "
              "Required for every alias in `snow.tables`."},
      {.name = "snow.table.<alias>.start.timestamp",
       .default_value = "1970-01-01 00:00:00",
       .check = CheckSnowDateTime,
       .group = kSource,
       .doc = "Where a table without a stored cursor begins: rows whose timestamp field is at "
              "or after this UTC date-time (`YYYY-MM-DD HH:MM:SS`) are read. Ignored once a "
              "cursor is stored; reset the cursor to apply a new value."},
      {.name = "snow.table.<alias>.timestamp.field",
       .default_value = "sys_updated_on",
       .check = CheckPlainFieldName,
       .group = kSource,
       .doc = "Date-time field the cursor follows. It must be a field of the table itself "
              "(no dot-walking) that changes whenever a row does; the default fits every "
              "ordinary table."},
      {.name = "snow.table.<alias>.sys.id.field",
       .default_value = "sys_id",
       .check = CheckPlainFieldName,
       .group = kSource,
       .doc = "Field holding the row's unique id, used as record key and as the cursor's "
              "tie-breaker. Database views expose it under a prefixed name, e.g. `inc_sys_id`."},
      {.name = "snow.table.<alias>.query",
       .check = CheckBaseQuery,
       .group = kSource,
       .doc = "Encoded query selecting which rows to read, e.g. `active=true^priority<=2`; "
              "empty reads every row. The source adds its own cursor terms and ordering, so "
              "`ORDERBY` is refused here. Branches joined by `^NQ` are supported. Whitespace "
              "around `^` and at either end is dropped. Changing the query starts a new cursor."},
      {.name = "snow.table.<alias>.fields",
       .type = T::kList,
       .check = CheckFieldList,
       .group = kSource,
       .doc = "Comma-separated fields to read (`sysparm_fields`); empty reads all of them. The "
              "list must name the id and timestamp fields; `sys_mod_count` is added when "
              "missing because duplicates are recognised by it."},
      {.name = "snow.table.<alias>.display.value",
       .type = T::kEnum,
       .default_value = "false",
       .allowed = {"false", "true", "all"},
       .group = kSource,
       .doc = "What the record holds for each field: `false` the stored values, `true` the "
              "display values (as a user sees them), `all` both, as "
              "`{\"display_value\":...,\"value\":...}` objects. With `true` the id, timestamp "
              "and `sys_mod_count` fields stay raw so consumers can still deduplicate."},
      {.name = "snow.table.<alias>.exclude.reference.link",
       .type = T::kBool,
       .default_value = "true",
       .group = kSource,
       .doc = "Leave out the API link that ServiceNow attaches to every reference field, so a "
              "reference reads as its plain id (or display value). Saves bandwidth and topic "
              "space."},
      {.name = "snow.table.<alias>.query.domain",
       .type = T::kBool,
       .default_value = "true",
       .group = kSource,
       .doc = "Respect domain separation: read only rows in the integration user's domains. "
              "`false` asks the instance to query across domains "
              "(`sysparm_query_no_domain=true`), which the user's roles must allow. Part of the "
              "cursor's identity."},
      {.name = "snow.table.<alias>.deletes",
       .type = T::kEnum,
       .default_value = "none",
       .allowed = {"none", "audit", "reconcile", "audit+reconcile"},
       .group = kSource,
       .doc = "How deletions reach the topic. `none`: not at all (the Table API shows only rows "
              "that exist). `audit`: the table's DELETED and RECOVERED entries in `sys_audit` "
              "are polled like rows; each deletion becomes a record with header "
              "`snow.source.operation=DELETE` (and a tombstone with "
              "`snow.source.emit.tombstones`), each undelete re-reads the row. Needs read access "
              "to `sys_audit`; deletions by the Table Cleaner, on `no_audit_delete` tables and on "
              "`sys_*` tables are not in it. `reconcile`: every "
              "`snow.table.<alias>.reconcile.interval.ms` a sweep reads the table's sys_ids and "
              "compares them with the ids snowcar emitted and did not delete (kept in the state "
              "store): ids gone from the instance become DELETE records marked "
              "`snow.source.delete.found.by=reconciliation`, ids never emitted are read and "
              "emitted. `audit+reconcile`: both. See docs/semantics.md, Deletes. Every mode works "
              "with every `value.format` and `key.format`: with a typed one the DELETE, its "
              "tombstone and the rows re-read carry the key bytes of the row's UPSERTs and a "
              "value of the table's schema (docs/source.md, Deletes of typed tables)."},
      {.name = "snow.table.<alias>.deletes.last.row",
       .type = T::kBool,
       .default_value = "false",
       .group = kSource,
       .doc = "Tables with `deletes=audit` or `audit+reconcile`: each DELETE record also "
              "carries the row as it was when deleted (`last_row`, or `before` with "
              "`snow.source.emit.envelope`), read from `sys_audit_delete`, one more request per "
              "page of deletions. Needs read access to `sys_audit_delete`; only audited tables "
              "keep the row there, so for the others `last_row` is null. Restricted to the "
              "table's `fields` when those are set."},
      {.name = "snow.table.<alias>.reconcile.interval.ms",
       .type = T::kInt,
       .default_value = "3600000",
       .min = 1000,
       .max = 7 * kDayMs,
       .group = kSource,
       .doc = "Tables with `deletes=reconcile` or `audit+reconcile`: the time from the start "
              "of one reconciliation sweep to the start of the next. A deletion the audit "
              "trail does not show reaches the topic within about one interval plus one "
              "sweep's duration."},
      {.name = "snow.table.<alias>.reconcile.batch.size",
       .type = T::kInt,
       .default_value = "10000",
       .min = 100,
       .max = kMaxPage,
       .group = kSource,
       .doc = "sys_ids read per reconciliation request (`sysparm_fields=sys_id`). One request "
              "at a time per table, through the same client and request limit as the rows, so "
              "a sweep never starves the row stream: a million rows cost 100 requests at the "
              "default."},
      {.name = "snow.table.<alias>.batch.size",
       .type = T::kInt,
       .min = 1,
       .max = kMaxPage,
       .group = kSource,
       .doc = "Page size for this table; unset uses `snow.source.batch.size`."},
      {.name = "snow.table.<alias>.poll.interval.ms",
       .type = T::kInt,
       .min = 0,
       .max = kDayMs,
       .group = kSource,
       .doc = "Wait between sweeps once this table is caught up; unset uses "
              "`snow.source.poll.interval.ms`."},
      {.name = "snow.table.<alias>.poll.interval.max.ms",
       .type = T::kInt,
       .min = 0,
       .max = kDayMs,
       .group = kSource,
       .doc = "Adaptive polling for this table, off unless set: each idle poll (one that finds "
              "no new row) doubles the wait between sweeps, up to this, and the first new row "
              "sets it back to the table's poll interval. Quiet tables then cost the instance "
              "little while busy ones stay fresh; the socket shows the current wait "
              "(`poll_interval_ms`). Must not be below the table's poll interval."},
      {.name = "snow.source.poll.interval.ms",
       .type = T::kInt,
       .default_value = "5000",
       .min = 0,
       .max = kDayMs,
       .group = kSource,
       .doc = "Wait between sweeps of a table that has caught up with the instance's clock. "
              "A table still catching up is swept again at once. Lower values cut latency and "
              "cost the instance more requests."},
      {.name = "snow.source.batch.size",
       .type = T::kInt,
       .default_value = "5000",
       .min = 1,
       .max = kMaxPage,
       .group = kSource,
       .doc = "Rows asked for per page (`sysparm_limit`). Bigger pages mean fewer requests but "
              "longer transactions on the instance, which cancels those running past about a "
              "minute."},
      {.name = "snow.source.overlap.seconds",
       .type = T::kInt,
       .default_value = "2",
       .min = 0,
       .max = 86400,
       .group = kSource,
       .doc = "How far before the stored cursor each restart and each idle wake reads again, "
              "to catch rows whose transaction committed late with an older timestamp. The "
              "dedup index keeps rows already sent from being sent again."},
      {.name = "snow.source.safety.lag.seconds",
       .type = T::kInt,
       .default_value = "1",
       .min = 0,
       .max = 3600,
       .group = kSource,
       .doc = "How far behind the instance's clock a sweep stops, so a second is read only "
              "once the instance has finished writing it."},
      {.name = "snow.source.backfill.parallelism",
       .type = T::kInt,
       .default_value = "4",
       .min = 1,
       .max = 64,
       .group = kSource,
       .doc = "The most concurrent sweeps that read a large backlog (at least two pages per "
              "sweep), each over its own time range cut by the instance's counts; the table's "
              "cursor moves over the finished ranges in order. A backfill starts with one range "
              "and opens another only while the table sits idle waiting for pages, so on an "
              "instance that answers faster than the table produces it reads like one sweep. "
              "Used at most up to `snow.http.max.concurrent.requests`. 1 reads every backlog "
              "with one sweep. Once caught up a table is always read by one sweep. Taken as 1 "
              "with `exactly.once.source.support` on (docs/semantics.md)."},
      {.name = "snow.source.dedup.window.records",
       .type = T::kInt,
       .default_value = "50000",
       .min = 0,
       .max = 10000000,
       .group = kSource,
       .doc = "Most row versions remembered per table to suppress duplicates within the "
              "overlap. Must cover the rows one overlap can hold; each entry costs memory and "
              "state-store space. 0 remembers nothing (every re-read row is sent again)."},
      {.name = "snow.source.bad.row.behavior",
       .type = T::kEnum,
       .default_value = "fail",
       .allowed = {"fail", "skip"},
       .group = kSource,
       .doc = "A row without a usable id or timestamp: `fail` stops its table with a message "
              "naming the row and field; `skip` logs it, counts it and goes on."},
      {.name = "snow.source.startup.probe",
       .type = T::kBool,
       .default_value = "true",
       .group = kSource,
       .doc = "Before the first poll, read one row of each table to catch missing rights, "
              "unknown tables or fields and a bad query early, and warn when the integration "
              "user's time zone is not UTC. `false` sends no request before the first poll."},
      {.name = "snow.source.schema.mode",
       .type = T::kEnum,
       .default_value = "schemaless",
       .allowed = {"schemaless", "strings", "typed"},
       .group = kSource,
       .doc = "Shape of the record value: `schemaless` the row's JSON as the instance sent it, "
              "`strings` a flat object whose every value is a string, `typed` each value as its "
              "column's type, read from the table's `sys_dictionary` entries (integers, "
              "booleans, decimals, UTC timestamps, dates, references), written in "
              "`value.format` (`json_typed` unless set)."},
      {.name = "snow.source.schema.refresh.ms",
       .type = T::kInt,
       .default_value = "3600000",
       .min = 1000,
       .max = 604800000,
       .group = kSource,
       .doc = "With `schema.mode=typed`: how old a table's column types (cached in `state.dir`) "
              "may be before the next page reads `sys_dictionary` again. A row carrying a field "
              "the types lack also triggers a read, at most once per page."},
      {.name = "snow.source.emit.envelope",
       .type = T::kBool,
       .default_value = "false",
       .group = kSource,
       .doc = "Wrap each value in a change-event envelope, `{\"before\":null,\"after\":<row>,"
              "\"source\":{...},\"op\":\"u\",\"ts_ms\":...}`, for consumers that expect "
              "change-data-capture events."},
      {.name = "snow.source.emit.tombstones",
       .type = T::kBool,
       .default_value = "false",
       .group = kSource,
       .doc = "Follow each DELETE record (tables with `deletes=audit`) with a record of the same "
              "key and a null value, so a compacted topic drops the key. Its header "
              "`snow.source.operation` says `TOMBSTONE`, so the pair counts as one deletion."},
      {.name = "source.group.id",
       .check = CheckTopicName,
       .group = kSource,
       .doc = "Share the tables between replicas: replicas with the same value (and the same "
              "`snow.tables`) join one Kafka consumer group on the topic `<id>.tables` and each "
              "table is polled by exactly one of them; its cursor and dedup entries move with "
              "it through the compacted topic `<id>.state`. Both topics need one partition per "
              "table (partition i is the i-th alias in sorted order) and are created when "
              "absent if the cluster allows it. Empty: every replica polls every table. Refused "
              "with `exactly.once.source.support` (a handoff is not transactional; "
              "docs/semantics.md). See docs/scale-out.md."},
      {.name = "source.group.replica.id",
       .group = kSource,
       .doc = "This replica's name in the socket view, logs and snapshots; empty uses "
              "`<hostname>-<pid>`."},
      {.name = "source.group.snapshot.interval.ms",
       .type = T::kInt,
       .default_value = "1000",
       .min = 50,
       .max = 600000,
       .group = kSource,
       .doc = "How often an owned table's committed cursor and dedup entries are published to "
              "`<source.group.id>.state` when they changed. After a `kill -9` of the owner, "
              "the next owner re-emits at most the rows committed in this interval plus one "
              "page per table (docs/semantics.md)."},
  };
  for (auto& spec : source) table.push_back(std::move(spec));
}

}  // namespace snowcar::config
