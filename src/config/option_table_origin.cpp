// SPDX-License-Identifier: Apache-2.0
// The keys of the two directions' link (docs/semantics.md, "The sink's own versions"): how
// long and how many of the row versions the sink wrote are remembered, and what the source
// does with them.
#include "option_table_parts.h"

namespace snowcar::config {
namespace {

using T = OptionType;

constexpr std::string_view kBoth = "Both directions: the sink's own versions at the source";

}  // namespace

void AppendOriginOptions(std::vector<OptionSpec>& table) {
  std::vector<OptionSpec> options = {
      {.name = "snow.source.echo",
       .type = T::kEnum,
       .default_value = "mark",
       .allowed = {"mark", "suppress"},
       .group = kBoth,
       .doc = "What the source does with a row version the sink of the same process wrote "
              "(matched exactly on table, sys_id and sys_mod_count). `mark` emits it with the "
              "headers `snow.origin=sink`, `snow.origin.topic`, `snow.origin.partition`, "
              "`snow.origin.offset` and, when known, `snow.origin.correlation` and "
              "`snow.origin.request.id`; `suppress` keeps it out of the topic (counted as "
              "`snowcar_source_echo_suppressed_total`) while its cursor and dedup entry still "
              "advance. Only used when `sink.enabled=true`; other versions are never marked."},
      {.name = "snow.sink.origin.window.records",
       .type = T::kInt,
       .default_value = "50000",
       .min = 0,
       .max = 10000000,
       .group = kBoth,
       .doc = "Most row versions the sink remembers having written (in the state store), for "
              "the source to recognise. The oldest go first; 0 remembers none (nothing is "
              "marked or suppressed)."},
      {.name = "snow.sink.origin.window.seconds",
       .type = T::kInt,
       .default_value = "86400",
       .min = 1,
       .max = 2592000,
       .group = kBoth,
       .doc = "How long the sink remembers a row version it wrote. Must cover the time until "
              "the source reads that version, stops and outages included: a version read "
              "after it was forgotten is emitted without a mark. Counted at every lookup, "
              "also while the sink writes nothing."},
  };
  for (auto& spec : options) table.push_back(std::move(spec));
}

}  // namespace snowcar::config
