// SPDX-License-Identifier: Apache-2.0
// The option table: every configuration key snowcar accepts, declared once.
//
// Validation, environment mapping, `snowcar config print` and docs/configuration.md are all
// derived from this one table, so a key cannot be accepted without being documented, and a
// documented default cannot drift from the one in force. To add a key, add one entry to the
// table in src/config/option_table.cpp (and regenerate the docs: `make docs-config`).
//
// Pattern keys: a name with a `<placeholder>` segment, e.g. `kafka.<property>` or
// `snow.sink.topic.<topic>.table`, declares a family of keys. A placeholder matches any
// non-empty text, dots included (topic names may contain dots); the module that reads the
// family checks the captured part itself.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace snowcar::config {

enum class OptionType {
  kString,
  kInt,       // 64-bit signed, optional [min, max]
  kBool,      // true | false, case-insensitive
  kEnum,      // one of `allowed`, matched case-insensitively, stored in the table's spelling
  kList,      // comma separated, items trimmed, empty items dropped
  kUrl,       // http or https with a host; trailing '/' dropped, path prefix kept
  kPassword,  // a secret string: never printed, registered with the log redactor
};

// "string", "int", "bool", ...
std::string_view OptionTypeName(OptionType type);

// An extra check beyond the type: returns "" when `value` (already normalised) is fine,
// otherwise what is wrong, phrased to follow "<key>: " (e.g. "must not contain '^'").
using ValueCheck = std::string (*)(std::string_view value);

// One table entry. Every member has a default so an entry names only what it needs:
//   {.name = "threads", .type = OptionType::kInt, .default_value = "0", .min = 0, .max = 256,
//    .group = kSidecar, .doc = "..."},
struct OptionSpec {
  std::string_view name = {};
  OptionType type = OptionType::kString;
  // Normalised text of the default; "" means no default (unset). `{other.key}` inside it is
  // replaced by the effective value of other.key, e.g. "{snow.url}/oauth_token.do".
  std::string_view default_value = {};
  std::optional<int64_t> min = std::nullopt;   // kInt only
  std::optional<int64_t> max = std::nullopt;   // kInt only
  std::vector<std::string_view> allowed = {};  // kEnum only
  // Never shown in messages or `config print` (any key may be given as `<name>.file`). kPassword
  // implies it. Keys of a pattern family whose name says password/secret/token are secret too.
  bool secret = false;
  bool required = false;  // unconditionally; conditional requirements live in cross_checks.cpp
  // Another key this one stands for (Kafka Connect's `topics` -> `snow.sink.topics`).
  std::string_view alias_of = {};
  // Accepted so a Kafka Connect properties file loads, but without effect here: giving it
  // produces a note (logged at start) instead of an error.
  bool ignored = false;
  // Control characters (below U+0020, and U+007F) are refused in every value: a `\u0000`
  // escape would cut the value short where it is handed on as a C string, and a line break
  // could split a header or a log line. Line breaks (and tabs) are allowed only where a key
  // sets this, e.g. PEM text given inline to librdkafka (`kafka.ssl.key.pem`).
  bool allow_line_breaks = false;
  // A key of Confluent's ServiceNow connectors whose value does not map onto one snowcar key
  // as it is (`servicenow.table`, `poll.interval.s`, ...): the loader rewrites it onto
  // snowcar's keys before anything else (src/config/confluent_keys.cpp), so nothing reads it
  // under its own name.
  bool rewritten = false;
  ValueCheck check = nullptr;
  std::string_view group = {};  // section in docs/configuration.md, in order of first use
  std::string_view doc = {};    // what it does and why one would change it

  bool is_pattern() const { return name.find('<') != std::string_view::npos; }
  bool is_secret() const { return secret || type == OptionType::kPassword; }
};

// The table, in documentation order.
const std::vector<OptionSpec>& Options();

// The entry declaring `key`: an exact name first, then the first matching pattern;
// nullptr when no entry does.
const OptionSpec* FindOption(std::string_view key);

// True when `key` is a member of the family `pattern` declares (see above).
bool MatchesPattern(std::string_view pattern, std::string_view key);

// True when the value of `key` (declared by `spec`) must be kept secret.
bool IsSecretKey(const OptionSpec& spec, std::string_view key);

// docs/configuration.md: an introduction, then every entry grouped by section.
std::string RenderMarkdownReference();

}  // namespace snowcar::config
