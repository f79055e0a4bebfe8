// SPDX-License-Identifier: Apache-2.0
// The validated configuration of one snowcar process.
//
// Where values come from, later layers winning: the properties file, then `SNOWCAR_*`
// environment variables (SNOWCAR_STATE_DIR -> state.dir: upper case, dots as underscores, an
// underscore of the key doubled: SNOWCAR_SNOW_TABLE_CHANGE__REQUEST_NAME), then `--set
// key=value` arguments. An unknown key is an error, except from the environment, where it is
// only a warning: other software may set SNOWCAR_* variables of its own. Any value may instead
// be read from the file named by `<key>.file` (trailing line breaks dropped), the way
// Kubernetes mounts secrets.
//
// Loading happens in two passes: each value is checked against its table entry and
// defaults are filled in; then rules spanning several keys are checked (e.g. snow.url is
// needed only when the source or sink runs). Every problem is reported at once, so one
// round trip fixes a file. Secret values are registered with redact:: as they are read, so
// they are masked in logs even when loading fails.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "snowcar/common/status.h"

namespace snowcar::config {

struct LoadRequest {
  std::optional<std::string> file = {};         // a .properties file; none: defaults + overrides
  std::vector<std::string> sets = {};           // "key=value", in command-line order
  std::map<std::string, std::string> env = {};  // full or filtered environment; SNOWCAR_* used
  // false (`config check --no-secrets`, for CI where mounted secrets are absent): the
  // `<key>.file` of a secret key is not opened (the key counts as given), and the files Kafka
  // properties name (kafka.ssl.ca.location, ...) are not checked.
  bool read_secret_files = true;
};

// The SNOWCAR_* variables of this process's environment.
std::map<std::string, std::string> EnvironFromProcess();

inline constexpr std::string_view kEnvironmentPrefix = "SNOWCAR_";
// The variable that sets `key`: snow.table.change_request.name ->
// SNOWCAR_SNOW_TABLE_CHANGE__REQUEST_NAME (upper case, `.` as `_`, `_` as `__`).
std::string EnvironmentName(std::string_view key);
// The key a variable sets, the inverse of EnvironmentName for keys without capitals:
// lower case, `__` read as `_` and a single `_` as `.`, left to right. The prefix is dropped
// when present.
std::string KeyFromEnvironmentName(std::string_view name);

struct LoadReport;

class Config {
 public:
  // Returns the config, or InvalidArgument whose message lists every problem, one per line.
  static Result<Config> Load(const LoadRequest& request);
  // Load for callers that go on to check what the configuration implies (`config check`,
  // `run`), so that one pass reports every problem: besides Load's message, the configuration
  // built from the values that passed (unknown keys left out, refused values at their
  // defaults). The configuration is absent only when the file could not be read.
  static LoadReport LoadAll(const LoadRequest& request);
  // The same checks for values given directly (tests, embedding); no environment applied.
  static Result<Config> FromMap(const std::map<std::string, std::string>& values);

  // Getters take a declared key (a pattern family's member counts). An undeclared key, an
  // ignored Kafka Connect key, or a getter that does not fit the key's type is a bug in the
  // caller: the process aborts with a message. GetString fits every type and returns the
  // normalised text; an unset key without default reads as "" (GetInt: 0, GetBool: false).
  const std::string& GetString(std::string_view key) const;
  int64_t GetInt(std::string_view key) const;
  bool GetBool(std::string_view key) const;
  std::vector<std::string> GetList(std::string_view key) const;
  // True when the key was given explicitly (file, environment, --set or <key>.file).
  bool IsSet(std::string_view key) const;
  // The file `key`'s value was read from (its `<key>.file`, or that of a key it is another
  // name for), as given; "" when the value came another way or the file was not read
  // (`--no-secrets`). A long-running component reads it again with ReadValueFromFile when a
  // mounted Secret may have been rotated in place.
  const std::string& ValueFile(std::string_view key) const;
  // Every key starting with `prefix` that has a value, with the prefix stripped; e.g.
  // WithPrefix("kafka.") is the librdkafka configuration.
  std::map<std::string, std::string> WithPrefix(std::string_view prefix) const;
  // Every key with its effective value in key order; secrets that have a value read
  // "[redacted]".
  std::vector<std::pair<std::string, std::string>> Effective() const;
  // Things worth logging at start that are not errors: ignored Kafka Connect keys, repeated
  // keys, a disabled TLS check.
  const std::vector<std::string>& notes() const { return notes_; }
  // Likely mistakes that do not stop the process: a SNOWCAR_* environment variable that names
  // no key (it may belong to other software, so it is ignored, but it may be a misspelt key).
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  friend class ConfigLoader;  // src/config/config_load.cpp fills the fields below.
  Config() = default;

  // Effective normalised values: every non-pattern key with a value or default, plus the
  // pattern-family members given.
  std::map<std::string, std::string, std::less<>> values_;
  std::set<std::string, std::less<>> explicit_;
  std::map<std::string, std::string, std::less<>> value_files_;  // key -> path it was read from
  std::vector<std::string> notes_;
  std::vector<std::string> warnings_;
};

// Reads `key`'s value from `path` the way loading reads `<key>.file`: bounded by
// kSecretFileLimit, trailing line breaks dropped, then checked and normalised as `key`'s
// value. A secret key's value is registered with redact:: before anything could show it.
// Errors name the key and the file, never the value.
Result<std::string> ReadValueFromFile(std::string_view key, const std::string& path);

struct LoadReport {
  std::string problems;  // Load's message listing every problem; "" when the values are valid
  std::optional<Config> config;
};

}  // namespace snowcar::config
