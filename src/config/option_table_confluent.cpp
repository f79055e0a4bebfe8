// SPDX-License-Identifier: Apache-2.0
// The keys of Confluent's ServiceNow source and sink connectors, so their properties files run
// unchanged. Keys that only change name are aliases; the others are rewritten onto snowcar's
// keys by src/config/confluent_keys.cpp, which also says how.
#include "option_table_parts.h"

namespace snowcar::config {

void AppendConfluentOptions(std::vector<OptionSpec>& table) {
  using T = OptionType;
  const std::vector<OptionSpec> keys = {
      {.name = "servicenow.url",
       .alias_of = "snow.url",
       .group = kConfluent,
       .doc = "Confluent's name for `snow.url`."},
      {.name = "servicenow.username",
       .alias_of = "snow.auth.username",
       .group = kConfluent,
       .doc = "Confluent's name for `snow.auth.username` (basic authentication, the default "
              "`snow.auth.type`)."},
      {.name = "servicenow.user",
       .alias_of = "snow.auth.username",
       .group = kConfluent,
       .doc = "Another spelling of `servicenow.username` found in Confluent's examples."},
      {.name = "servicenow.password",
       .type = T::kPassword,
       .alias_of = "snow.auth.password",
       .group = kConfluent,
       .doc = "Confluent's name for `snow.auth.password`."},
      {.name = "servicenow.table",
       .rewritten = true,
       .group = kConfluent,
       .doc = "The one table of a Confluent connector. In a source file it becomes a table whose "
              "alias is the table's name: `snow.tables=<table>`, `snow.table.<table>.name=<table>` "
              "and `snow.table.<table>.topic` from `kafka.topic`. In a sink file it becomes "
              "`snow.sink.table`. A source file is one whose `connector.class` ends in "
              "`SourceConnector` or, without that, one that has `kafka.topic`; a sink file is one "
              "whose `connector.class` ends in `SinkConnector` or, without that, one that has "
              "`topics`."},
      {.name = "servicenow.since",
       .rewritten = true,
       .group = kConfluent,
       .doc = "Source: the UTC date (`YYYY-MM-DD`) reading starts at, midnight UTC; becomes "
              "`snow.table.<table>.start.timestamp=<date> 00:00:00`. Without it, a file with "
              "`servicenow.table` starts at midnight UTC of the day snowcar first starts, as "
              "Confluent's connector does (`snow.table.<alias>.start.timestamp` otherwise "
              "defaults to the epoch). Used only while the table has no stored cursor."},
      {.name = "kafka.topic",
       .rewritten = true,
       .group = kConfluent,
       .doc = "Source: the topic of `servicenow.table`; becomes `snow.table.<table>.topic`. "
              "Never handed to librdkafka (which has no such property): anywhere else it is "
              "refused."},
      {.name = "batch.max.rows",
       .alias_of = "snow.source.batch.size",
       .group = kConfluent,
       .doc = "Confluent's name for `snow.source.batch.size`, the rows asked for per page."},
      {.name = "poll.interval.s",
       .rewritten = true,
       .group = kConfluent,
       .doc = "Seconds between polls of a table that is caught up; becomes "
              "`snow.source.poll.interval.ms` (times 1000). A whole number from 1."},
      {.name = "retry.max.times",
       .rewritten = true,
       .group = kConfluent,
       .doc = "Retries after a failed request, the first attempt not counted; becomes "
              "`snow.retry.max.attempts` (plus one). A whole number from 0."},
      {.name = "proxy.url",
       .alias_of = "snow.http.proxy.url",
       .group = kConfluent,
       .doc = "Confluent's name for `snow.http.proxy.url`."},
      {.name = "proxy.user",
       .alias_of = "snow.http.proxy.username",
       .group = kConfluent,
       .doc = "Confluent's name for `snow.http.proxy.username`."},
      {.name = "proxy.password",
       .type = T::kPassword,
       .alias_of = "snow.http.proxy.password",
       .group = kConfluent,
       .doc = "Confluent's name for `snow.http.proxy.password`."},
      {.name = "reporter.result.topic.name",
       .alias_of = "snow.sink.reporter.success.topic",
       .group = kConfluent,
       .doc = "Confluent's name for `snow.sink.reporter.success.topic`."},
      {.name = "reporter.error.topic.name",
       .alias_of = "snow.sink.reporter.error.topic",
       .group = kConfluent,
       .doc = "Confluent's name for `snow.sink.reporter.error.topic`."},
      {.name = "reporter.bootstrap.servers",
       .ignored = true,
       .group = kConfluent,
       .doc = "Reports go to the cluster of `kafka.bootstrap.servers`, with the other `kafka.*` "
              "properties."},
      {.name = "reporter.<setting>",
       .ignored = true,
       .group = kConfluent,
       .doc = "Other settings of the reporter's topics and producer (replication factors, "
              "`reporter.admin.*`, `reporter.producer.*`): snowcar creates no topic, and its "
              "producer takes the `kafka.*` properties."},
      {.name = "confluent.license",
       .ignored = true,
       .group = kConfluent,
       .doc = "snowcar needs no licence key."},
      {.name = "confluent.topic.<setting>",
       .ignored = true,
       .group = kConfluent,
       .doc = "Settings of the licence topic, which snowcar does not use."},
  };
  table.insert(table.end(), keys.begin(), keys.end());
}

}  // namespace snowcar::config
