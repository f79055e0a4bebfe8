// SPDX-License-Identifier: Apache-2.0
// The sink's keys in the option table; see include/snowcar/config/options.h. The names and
// defaults follow the reference sink connector so its properties files load unchanged; rules
// that span several keys are checked by sink::SinkSettings::FromConfig.
#include "option_table_parts.h"
#include "value_checks.h"

namespace snowcar::config {
namespace {

using T = OptionType;

// Same section as snow.sink.topics in option_table.cpp.

std::vector<OptionSpec> RoutingOptions() {
  return {
      {.name = "snow.sink.routing.mode",
       .type = T::kEnum,
       .default_value = "fixed",
       .allowed = {"fixed", "topic_map", "header"},
       .group = kSink,
       .doc = "How a command record picks its table: `fixed` writes every record to "
              "`snow.sink.table`; `topic_map` looks the record's topic up in "
              "`snow.sink.topic.<topic>.table`; `header` reads the table name from the header "
              "named by `snow.sink.table.header`, accepting only names on "
              "`snow.sink.table.allowlist`."},
      {.name = "snow.sink.table",
       .check = CheckTableName,
       .group = kSink,
       .doc = "Table written by `snow.sink.routing.mode=fixed`, e.g. `incident`; required in "
              "that mode."},
      {.name = "snow.sink.topic.<topic>.table",
       .check = CheckTableName,
       .group = kSink,
       .doc = "Table for the records of one consumed topic under `topic_map` routing, e.g. "
              "`snow.sink.topic.eu.orders.table=u_order` (the topic name may contain dots). "
              "Every topic in `snow.sink.topics` needs one."},
      {.name = "snow.sink.table.header",
       .default_value = "snow.table",
       .group = kSink,
       .doc = "Header carrying the table name under `header` routing. Its value must be a "
              "plain table name (lower-case letters, digits, `_`) and be on the allowlist."},
      {.name = "snow.sink.table.allowlist",
       .type = T::kList,
       .check = CheckTableNameList,
       .group = kSink,
       .doc = "Tables that `header` routing may write; required in that mode. A producer "
              "that can name any table could otherwise write to `sys_user` and the like."},
  };
}

std::vector<OptionSpec> OperationOptions() {
  return {
      {.name = "snow.sink.operation.mode",
       .type = T::kEnum,
       .default_value = "key_value",
       .allowed = {"key_value", "header", "fixed"},
       .group = kSink,
       .doc = "Where the operation comes from when the record has no operation header. "
              "`key_value` infers it: a null value deletes, a record without a sys_id creates, "
              "anything else updates with `snow.sink.update.method`. `fixed` applies "
              "`snow.sink.operation.fixed` to every record. `header` expects the header and "
              "infers like `key_value` when it is missing (unless "
              "`snow.sink.operation.header.required`). An operation header, when present, "
              "wins in every mode."},
      {.name = "snow.sink.operation.fixed",
       .type = T::kEnum,
       .allowed = {"CREATE", "POST", "PATCH", "PUT", "UPDATE", "DELETE", "UPSERT"},
       .group = kSink,
       .doc = "The operation under `snow.sink.operation.mode=fixed`; required in that mode. "
              "Accepts the header's vocabulary: `POST` is `CREATE`, `UPDATE` means "
              "`snow.sink.update.method`, and "
              "`UPSERT` updates records that carry a sys_id and creates the others."},
      {.name = "snow.sink.operation.header",
       .default_value = "snow.operation",
       .group = kSink,
       .doc = "Header naming a record's operation: `CREATE` (or `POST`), `PATCH`, `PUT`, "
              "`UPDATE`, `DELETE` or `UPSERT`, in any letter case. Any other value fails the "
              "record."},
      {.name = "snow.sink.operation.header.required",
       .type = T::kBool,
       .default_value = "false",
       .group = kSink,
       .doc = "Fail records that lack the operation header instead of falling back to "
              "`snow.sink.operation.mode`; for producers that must always say what they mean."},
      {.name = "snow.sink.update.method",
       .type = T::kEnum,
       .default_value = "PATCH",
       .allowed = {"PATCH", "PUT"},
       .group = kSink,
       .doc = "HTTP method used for updates (inferred, `UPDATE` or `UPSERT`). The Table API "
              "treats both as a partial update of the fields sent."},
  };
}

std::vector<OptionSpec> SysIdOptions() {
  return {
      {.name = "snow.sink.sys.id.key.field",
       .default_value = "sys_id",
       .check = CheckNotBlank,
       .group = kSink,
       .doc = "When the record key is a JSON object, the field holding the target row's "
              "sys_id. A key that is a plain string is the sys_id itself."},
      {.name = "snow.sink.sys.id.value.field",
       .default_value = "sys_id",
       .check = CheckNotBlank,
       .group = kSink,
       .doc = "Field of the record value that may hold the target row's sys_id."},
      {.name = "snow.sink.sys.id.precedence",
       .type = T::kEnum,
       .default_value = "reject",
       .allowed = {"reject", "key", "value"},
       .group = kSink,
       .doc = "What to do when the key, the value field and the `snow.sys_id` header give "
              "different sys_ids: `reject` fails the record; `key` trusts the key, then the "
              "header, then the value; `value` trusts the value, then the header, then the key. "
              "Only the sys_id that wins is checked for shape under `key` and `value`."},
  };
}

std::vector<OptionSpec> MappingOptions() {
  return {
      {.name = "snow.sink.null.behavior",
       .type = T::kEnum,
       .default_value = "omit",
       .allowed = {"omit", "clear", "reject"},
       .group = kSink,
       .doc = "Fields whose value is JSON null: `omit` leaves the column untouched, `clear` "
              "sends an empty string (which empties the column), `reject` fails the record."},
      {.name = "snow.sink.unknown.field.behavior",
       .type = T::kEnum,
       .default_value = "fail",
       .allowed = {"fail", "drop", "report", "passthrough"},
       .group = kSink,
       .doc = "Fields that are not columns of the table (checked against the table's "
              "dictionary, parents included). The Table API silently ignores them, so `fail` "
              "(the record fails, naming them) catches misspelt names; `drop` removes them; "
              "`report` removes them and lists them in the success report; `passthrough` "
              "sends them anyway."},
      {.name = "snow.sink.nested.behavior",
       .type = T::kEnum,
       .default_value = "reject",
       .allowed = {"reject", "flatten", "stringify"},
       .group = kSink,
       .doc = "Fields whose value is a JSON object or array: `reject` fails the record; "
              "`flatten` turns `{\"a\":{\"b\":1}}` into the field `a_b` (objects at any depth; "
              "arrays become compact JSON text); `stringify` sends the compact JSON text."},
      {.name = "snow.sink.nested.flatten.delimiter",
       .default_value = "_",
       .check = CheckNotBlank,
       .group = kSink,
       .doc = "Joins the names of nested fields under `flatten`."},
      {.name = "snow.sink.field.rename",
       .type = T::kList,
       .check = CheckFieldRenames,
       .group = kSink,
       .doc = "Renames record fields to column names before anything else, as "
              "`from:to` pairs, e.g. `title:short_description,prio:priority`. Renames apply to "
              "the record's own names at once, so `a:b,b:a` swaps two fields."},
      {.name = "snow.sink.field.allowlist",
       .type = T::kList,
       .group = kSink,
       .doc = "Only these fields are written (names after renaming); empty writes all. Not "
              "together with the denylist."},
      {.name = "snow.sink.field.denylist",
       .type = T::kList,
       .group = kSink,
       .doc = "Fields never written (names after renaming). Not together with the allowlist."},
  };
}

std::vector<OptionSpec> DeliveryOptions() {
  return {
      {.name = "snow.sink.max.in.flight",
       .type = T::kInt,
       .default_value = "8",
       .min = 1,
       .max = 1024,
       .group = kSink,
       .doc = "Writes in flight at once across all partitions. Under "
              "`snow.sink.ordering=partition` each partition writes one record at a time, in "
              "offset order; under `key`, one record at a time per key. At most "
              "`snow.http.max.concurrent.requests`."},
      {.name = "snow.sink.ordering",
       .type = T::kEnum,
       .default_value = "partition",
       .allowed = {"partition", "key"},
       .group = kSink,
       .doc = "What must stay in offset order. `partition`: every record of a partition, one "
              "write at a time per partition. `key`: only records with the same key (for a "
              "keyless record its correlation value, else the chain of keyless records); "
              "records of different keys on one partition are written concurrently, up to "
              "`snow.sink.max.in.flight`."},
      {.name = "snow.sink.ordering.max.held.records",
       .type = T::kInt,
       .default_value = "5000",
       .min = 16,
       .max = 10000,
       .group = kSink,
       .doc = "With `snow.sink.ordering=key`: records a partition may hold between its first "
              "unfinished record and its newest one (a slow or failed key keeps the committed "
              "offset back while other keys go on). At this many the partition is paused; it "
              "resumes at half. Pausing drops what the consumer fetched ahead, and the fetch "
              "after the resume can wait `kafka.fetch.wait.max.ms` (500 ms) when the consumer "
              "had read to the end of the partition: the half left must last that long at the "
              "partition's write rate (3 200 writes/s at 64 in flight and 20 ms a write) or the "
              "writes stall at every pause."},
      {.name = "snow.sink.revoke.timeout.ms",
       .type = T::kInt,
       .default_value = "60000",
       .min = 0,
       .max = 300000,
       .group = kSink,
       .doc = "When a rebalance takes partitions away, how long the sink waits for their "
              "writes already on the wire to be answered before it gives the partitions up. "
              "Writes not sent yet (waiting out a Retry-After or a retry's backoff, or for a "
              "permit) are withdrawn at once and never sent; the next owner applies their "
              "records. Past the timeout the partitions are given up anyway, and a write still "
              "unanswered may reach the instance after the next owner's writes: keep this at "
              "or above `snow.http.request.timeout.ms`, which ends every attempt sooner. The "
              "group's rebalance waits meanwhile (it allows `kafka.max.poll.interval.ms`); at "
              "shutdown `shutdown.timeout.ms` bounds the wait too."},
      {.name = "snow.sink.create.ambiguous.behavior",
       .type = T::kEnum,
       .default_value = "fail_ambiguous",
       .allowed = {"retry", "fail_ambiguous", "correlation_lookup"},
       .group = kSink,
       .doc = "A create whose answer was lost may or may not have inserted the row. "
              "`fail_ambiguous` fails the record as AMBIGUOUS; `retry` posts again and may "
              "insert a duplicate; `correlation_lookup` searches for the row by "
              "`snow.sink.correlation.field` before every create, updating the one match, "
              "creating when there is none, and failing when several rows match."},
      {.name = "snow.sink.correlation.field",
       .check = CheckColumnName,
       .group = kSink,
       .doc = "Column holding a producer-assigned unique id, used by `correlation_lookup`; "
              "required there, and every create must carry it. A value containing `^` or a "
              "line break fails the record, since it would change the lookup query's meaning."},
      {.name = "snow.sink.not.found.behavior",
       .type = T::kEnum,
       .default_value = "fail",
       .allowed = {"fail", "ignore", "create"},
       .group = kSink,
       .doc = "An update or delete answered 404 on its first try: `fail` fails the record as "
              "NOT_FOUND; `ignore` counts it as done; `create` posts the row with the sys_id "
              "the record carried (deletes are never turned into creates)."},
      {.name = "behavior.on.api.errors",
       .type = T::kEnum,
       .default_value = "fail",
       .allowed = {"fail", "log", "ignore"},
       .group = kSink,
       .doc = "After a permanent failure (and after the dead letter queue, if set): `fail` "
              "stops the partition without committing past the record; `log` logs it and "
              "moves on; `ignore` moves on quietly."},
      {.name = "snow.sink.reporter.success.topic",
       .check = CheckTopicName,
       .group = kSink,
       .doc = "Topic receiving one JSON report per applied record (operation, table, sys_id, "
              "status, request id, source position); empty sends none."},
      {.name = "snow.sink.reporter.error.topic",
       .check = CheckTopicName,
       .group = kSink,
       .doc = "Topic receiving one JSON report per failed record, with the error class, "
              "attempts and a masked excerpt of the answer of at most 500 characters; empty "
              "sends none."},
      {.name = "snow.sink.reporter.include.request.body",
       .type = T::kBool,
       .default_value = "false",
       .group = kSink,
       .doc = "Add the body sent to ServiceNow to success and error reports. Off by default "
              "because record contents may be sensitive."},
      {.name = "errors.deadletterqueue.topic.name",
       .check = CheckTopicName,
       .group = kSink,
       .doc = "Topic receiving failed records unchanged (key, value, headers) plus headers "
              "describing the failure, as Kafka Connect writes them; empty means no dead "
              "letter queue. Must not be a consumed topic."},
  };
}

}  // namespace

void AppendSinkOptions(std::vector<OptionSpec>& table) {
  for (auto part :
       {RoutingOptions, OperationOptions, SysIdOptions, MappingOptions, DeliveryOptions}) {
    for (auto& spec : part()) table.push_back(std::move(spec));
  }
}

}  // namespace snowcar::config
