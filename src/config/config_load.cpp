// SPDX-License-Identifier: Apache-2.0
// Config::Load and Config::FromMap: merge the layers, check each value, fill defaults, then
// run the cross-field checks; collect every problem before answering.
#include <algorithm>
#include <cstdio>
#include <set>

#include "confluent_keys.h"
#include "converter_keys.h"
#include "cross_checks.h"
#include "raw_value.h"
#include "snowcar/common/file_read.h"
#include "snowcar/common/redact.h"
#include "snowcar/common/time.h"
#include "snowcar/config/config.h"
#include "snowcar/config/options.h"
#include "snowcar/config/properties.h"
#include "value_checks.h"
#include "value_normalize.h"

namespace snowcar::config {
namespace {

constexpr std::string_view kFileSuffix = ".file";
constexpr std::string_view kKafkaPrefix = "kafka.";
// What a secret's `<key>.file` stands for when secret files are not read (`--no-secrets`):
// never shown, since the key is secret, and enough for a "required" check.
constexpr std::string_view kUnreadSecret = "[secret file not read]";

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

// The declared key closest to `key` when it is a near miss, else "".
std::string_view NearestKey(std::string_view key) {
  std::string_view best;
  size_t best_distance = std::max<size_t>(2, key.size() / 6) + 1;
  for (const OptionSpec& spec : Options()) {
    if (spec.is_pattern()) continue;
    const size_t d = EditDistance(key, spec.name);
    if (d < best_distance) {
      best_distance = d;
      best = spec.name;
    }
  }
  return best;
}

// " (did you mean 'snow.url'?)" for a near miss, else "".
std::string Suggest(std::string_view key) {
  const std::string_view best = NearestKey(key);
  return best.empty() ? "" : " (did you mean '" + std::string(best) + "'?)";
}

// A value as a message may show it: control characters written as properties escapes
// (`\u0000`), so a NUL cannot end the message early and a line break cannot split it.
std::string Printable(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (const char ch : value) {
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0x20 && c != 0x7f) {
      out += ch;
      continue;
    }
    char escape[8];
    std::snprintf(escape, sizeof escape, "\\u%04X", c);
    out += escape;
  }
  return out;
}

// The UTC date of the day, `YYYY-MM-DD`.
std::string TodayUtc() {
  return FormatSnowTimestamp(SystemClock::Instance().NowSeconds()).substr(0, 10);
}

// Reads a value kept in a file (a mounted secret); the line break editors and `echo` add is not
// part of it.
Result<std::string> ReadValueFile(const std::string& path) {
  SNOWCAR_ASSIGN_OR_RETURN(std::string content, ReadFileBounded(path, kSecretFileLimit));
  while (!content.empty() && (content.back() == '\n' || content.back() == '\r')) {
    content.pop_back();
  }
  return content;
}

}  // namespace

class ConfigLoader {
 public:
  // Reads the file; malformed lines join the other problems, an unreadable file ends loading.
  Status AddFile(const std::string& path) {
    SNOWCAR_ASSIGN_OR_RETURN(const std::string text, ReadFileBounded(path, kConfigFileLimit));
    AddProperties(ParsePropertiesCollecting(text, path, errors_), path);
    return Status::Ok();
  }

  void AddProperties(const Properties& props, const std::string& path) {
    for (const Property& p : props.entries) {
      Put(p.key, p.value, path + ":" + std::to_string(p.line));
    }
    notes_.insert(notes_.end(), props.notes.begin(), props.notes.end());
  }

  void AddEnvironment(const std::map<std::string, std::string>& env) {
    for (const auto& [name, value] : env) {
      if (!name.starts_with(kEnvironmentPrefix) || name.size() == kEnvironmentPrefix.size()) {
        continue;
      }
      const std::string key = KeyFromEnvironmentName(name);
      merged_[key] = RawValue{value, "environment " + name, name};
    }
  }

  void AddSets(const std::vector<std::string>& sets) {
    for (const std::string& set : sets) {
      const size_t eq = set.find('=');
      const std::string key = eq == std::string::npos ? "" : Trim(set.substr(0, eq));
      if (key.empty()) {
        // Show only the part before '=': the rest may be a secret.
        errors_.push_back("--set '" + set.substr(0, eq) + "' must have the form key=value");
        continue;
      }
      Put(key, set.substr(eq + 1), "--set");
    }
  }

  // `--no-secrets`: a secret's `<key>.file` is not opened, and neither are the files Kafka
  // properties name; for checking a configuration where the mounted secrets are absent.
  void SkipSecretFiles() {
    read_secret_files_ = false;
    check_files_ = false;
  }

  void AddMap(const std::map<std::string, std::string>& values) {
    for (const auto& [key, value] : values) Put(key, value, "given");
  }

  Result<Config> Finish();
  // The configuration built from the values that passed their checks; `problems` gets the
  // message listing every problem, or stays empty.
  Config Build(std::string& problems);

 private:
  void Put(const std::string& key, std::string value, std::string origin) {
    merged_[key] = RawValue{std::move(value), std::move(origin)};
  }
  // Sorts a given key into candidates_, secret files, notes or errors.
  void Classify(const std::string& key, const RawValue& raw);
  void ReadValueFiles();
  void CheckValues(Config& config);
  void FillDefaults(Config& config);

  std::map<std::string, RawValue> merged_;
  std::map<std::string, RawValue> candidates_;  // declared key -> raw value
  // A `<key>.file` entry: the key as given (topics.file) and its raw value, the path.
  struct ValueFile {
    std::string file_key;
    RawValue path;
  };
  std::map<std::string, ValueFile> value_files_;  // key whose value the file holds -> entry
  std::map<std::string, std::string> read_from_;  // key -> the file its value was read from
  std::set<std::string, std::less<>> rejected_;   // keys whose value failed its check
  std::vector<std::string> errors_;
  std::vector<std::string> notes_;
  std::vector<std::string> warnings_;
  bool read_secret_files_ = true;
  bool check_files_ = true;
};

void ConfigLoader::Classify(const std::string& key, const RawValue& raw) {
  const OptionSpec* spec = FindOption(key);
  // `<key>.file`, for any key (secrets, but also a user name or a PEM certificate kept in a
  // mounted Secret), unless declared under its own name (snow.tls.ca.file). Checked before
  // families, or kafka.sasl.username.file would pass to librdkafka as a property. An alias
  // reads into the key it stands for; an ignored key has no value to read.
  if ((spec == nullptr || spec->is_pattern()) && key.ends_with(kFileSuffix)) {
    std::string stem = key.substr(0, key.size() - kFileSuffix.size());
    const OptionSpec* stem_spec = FindOption(stem);
    if (stem_spec != nullptr && !stem_spec->ignored && !stem_spec->rewritten) {
      if (!stem_spec->alias_of.empty()) stem = std::string(stem_spec->alias_of);
      if (const auto it = value_files_.find(stem); it != value_files_.end()) {
        errors_.push_back("'" + key + "' [" + raw.origin + "] and '" + it->second.file_key + "' [" +
                          it->second.path.origin + "] both name a file for '" + stem +
                          "'; give only one");
        return;
      }
      value_files_[stem] = ValueFile{key, raw};
      return;
    }
  }
  if (spec == nullptr) {
    if (!raw.env_name.empty()) {
      // Other software may set SNOWCAR_* variables of its own (a wrapper's SNOWCAR_BIN); they
      // must not stop the sidecar, but a misspelt key should still be seen.
      std::string warning = "environment variable " + raw.env_name +
                            " names no configuration key ('" + redact::Mask(key) +
                            "'), so it is ignored";
      if (const std::string_view best = NearestKey(key); !best.empty()) {
        warning +=
            " (did you mean " + EnvironmentName(best) + ", for '" + std::string(best) + "'?)";
      }
      warnings_.push_back(std::move(warning));
      return;
    }
    errors_.push_back("unknown key '" + redact::Mask(key) + "' [" + raw.origin + "]" +
                      Suggest(key));
    return;
  }
  if (spec->ignored) {
    if (spec->check != nullptr) {
      const std::string problem = spec->check(Trim(raw.value));
      if (!problem.empty()) {
        errors_.push_back(key + ": " + problem + " [" + raw.origin + "]");
        return;
      }
    }
    notes_.push_back(key + " [" + raw.origin +
                     "] is a Kafka Connect setting without meaning for snowcar; ignored");
    return;
  }
  if (spec->rewritten) {
    // RewriteConfluentKeys takes every such key out first; one left here is a bug there.
    errors_.push_back(key + " [" + raw.origin + "] was not rewritten (a bug)");
    return;
  }
  if (!spec->alias_of.empty()) {
    const std::string target(spec->alias_of);
    if (candidates_.count(target) != 0 && merged_.count(target) == 0) {
      // Two names for the same key (servicenow.user and servicenow.username).
      errors_.push_back("'" + key + "' [" + raw.origin + "] and another name of '" + target +
                        "' [" + candidates_[target].origin + "] are both given; give one");
      return;
    }
    if (merged_.count(target) != 0) {
      errors_.push_back("both '" + key + "' [" + raw.origin + "] and '" + target + "' [" +
                        merged_[target].origin + "] are given; '" + key +
                        "' is another name for '" + target + "', give only one");
      return;
    }
    candidates_[target] = raw;
    return;
  }
  candidates_[key] = raw;
}

void ConfigLoader::ReadValueFiles() {
  for (const auto& [key, file] : value_files_) {
    const std::string& file_key = file.file_key;
    const RawValue& raw = file.path;
    if (candidates_.count(key) != 0) {
      std::string error = "both '" + key + "' [";
      error += candidates_[key].origin;
      error +=
          "] and '" + file_key + "' [" + raw.origin + "] are given; give the value one way only";
      errors_.push_back(std::move(error));
      continue;
    }
    const std::string path = Trim(raw.value);
    if (!read_secret_files_ && IsSecretKey(*FindOption(key), key)) {
      notes_.push_back(file_key + " [" + raw.origin + "] was not read (--no-secrets)");
      // The check creates the Kafka clients (without a broker), and librdkafka parses these
      // values as it does: a stand-in would be refused where the real file would not.
      const bool parsed_by_kafka = key.starts_with(kKafkaPrefix) &&
                                   (key.ends_with(".pem") || key.ends_with("oauthbearer.config"));
      if (!parsed_by_kafka) {
        candidates_[key] = RawValue{std::string(kUnreadSecret), file_key + " (not read)"};
      }
      continue;
    }
    auto content = ReadValueFile(path);
    if (!content.ok()) {
      errors_.push_back(file_key + ": " + content.status().message() + " [" + raw.origin + "]");
      // Given, only unreadable: the cross-checks must not add "<key> is required" too.
      rejected_.insert(key);
      continue;
    }
    std::string origin = "file " + path;
    origin += " via " + file_key;
    candidates_[key] = RawValue{std::move(content).value(), std::move(origin)};
    read_from_[key] = path;
  }
}

void ConfigLoader::CheckValues(Config& config) {
  // Every secret is registered before any value is checked, so neither a rejected secret nor
  // a secret pasted into another key's value reaches a message or log line.
  for (const auto& [key, raw] : candidates_) {
    if (IsSecretKey(*FindOption(key), key)) redact::RegisterSecret(raw.value);
    // schema.registry.url=http://key:secret@host (credentials.source=URL), or a URL refused
    // for its user-info: the password is as secret as one given in its own key.
    redact::RegisterUrlSecrets(raw.value);
  }
  for (const auto& [key, raw] : candidates_) {
    const OptionSpec& spec = *FindOption(key);
    auto normalized = NormalizeValue(spec, raw.value);
    if (!normalized.ok()) {
      std::string shown = "the value";
      if (!IsSecretKey(spec, key)) shown = "'" + Printable(redact::Mask(raw.value)) + "'";
      std::string error = key + ": ";
      error += shown;
      error += " " + normalized.status().message();
      error += " [" + raw.origin + "]";
      errors_.push_back(std::move(error));
      rejected_.insert(key);
      continue;
    }
    if (key.starts_with(kKafkaPrefix) && !check_files_ &&
        IsKafkaFileProperty(std::string_view(key).substr(kKafkaPrefix.size())) &&
        !normalized->empty()) {
      // Said, so a CI run that passes knows what it did not look at; left out, so the Kafka
      // clients the check creates do not open it either.
      notes_.push_back(key + " [" + raw.origin + "] was not opened (--no-secrets)");
      continue;
    }
    if (key.starts_with(kKafkaPrefix) && check_files_) {
      // librdkafka opens these files only when it creates a client, i.e. after the source may
      // already run; a missing CA file is a configuration error and is reported with the rest.
      const std::string problem =
          CheckKafkaFileProperty(std::string_view(key).substr(kKafkaPrefix.size()), *normalized);
      if (!problem.empty()) {
        std::string error = key + ": cannot read ";
        error += IsSecretKey(spec, key) ? "the file" : "'" + Printable(*normalized) + "'";
        error += ": " + problem;
        error += " [" + raw.origin + "]";
        errors_.push_back(std::move(error));
        rejected_.insert(key);
        continue;
      }
    }
    config.values_[key] = std::move(normalized).value();
    config.explicit_.insert(key);
    if (const auto it = read_from_.find(key); it != read_from_.end()) {
      config.value_files_[key] = it->second;
    }
  }
}

void ConfigLoader::FillDefaults(Config& config) {
  std::vector<const OptionSpec*> derived;  // defaults that refer to other keys
  for (const OptionSpec& spec : Options()) {
    if (spec.is_pattern() || spec.ignored || spec.rewritten || !spec.alias_of.empty()) continue;
    if (config.values_.count(spec.name) != 0) continue;
    config.values_.emplace(spec.name, std::string(spec.default_value));
    if (spec.default_value.find('{') != std::string_view::npos) derived.push_back(&spec);
  }
  for (const OptionSpec* spec : derived) {
    std::string out;
    std::string_view text = spec->default_value;
    bool unresolved = false;
    while (!text.empty()) {
      const size_t open = text.find('{');
      const size_t close = text.find('}', open);
      if (open == std::string_view::npos || close == std::string_view::npos) {
        out.append(text);
        break;
      }
      out.append(text.substr(0, open));
      const auto it = config.values_.find(text.substr(open + 1, close - open - 1));
      if (it == config.values_.end() || it->second.empty()) unresolved = true;
      if (it != config.values_.end()) out += it->second;
      text.remove_prefix(close + 1);
    }
    // A default built from an unset key is itself unset.
    config.values_[std::string(spec->name)] = unresolved ? "" : out;
  }
  for (const OptionSpec& spec : Options()) {
    if (spec.required && !spec.is_pattern() && config.values_[std::string(spec.name)].empty()) {
      errors_.push_back(std::string(spec.name) + " is required");
    }
  }
}

Config ConfigLoader::Build(std::string& problems) {
  RewriteConfluentKeys(merged_, TodayUtc(), errors_, notes_);
  RewriteConverterKeys(merged_, errors_, notes_);
  for (const auto& [key, raw] : merged_) Classify(key, raw);
  ReadValueFiles();
  Config config;
  CheckValues(config);
  FillDefaults(config);
  RunCrossChecks(CrossCheckInput{config.values_, rejected_}, errors_, notes_, warnings_);
  if (!errors_.empty()) {
    problems = "invalid configuration (" + std::to_string(errors_.size()) +
               (errors_.size() == 1 ? " problem):" : " problems):");
    for (const std::string& e : errors_) problems += "\n  - " + e;
    // A misspelt environment key is often why a required key is missing.
    for (const std::string& w : warnings_) problems += "\nwarning: " + w;
  }
  config.notes_ = std::move(notes_);
  config.warnings_ = std::move(warnings_);
  return config;
}

Result<Config> ConfigLoader::Finish() {
  std::string problems;
  Config config = Build(problems);
  if (!problems.empty()) return Status::InvalidArgument(problems);
  return config;
}

namespace {

Status Prepare(ConfigLoader& loader, const LoadRequest& request) {
  if (!request.read_secret_files) loader.SkipSecretFiles();
  if (request.file) SNOWCAR_RETURN_IF_ERROR(loader.AddFile(*request.file));
  loader.AddEnvironment(request.env);
  loader.AddSets(request.sets);
  return Status::Ok();
}

}  // namespace

LoadReport Config::LoadAll(const LoadRequest& request) {
  ConfigLoader loader;
  if (Status s = Prepare(loader, request); !s.ok()) return LoadReport{s.message(), std::nullopt};
  LoadReport report;
  report.config = loader.Build(report.problems);
  return report;
}

Result<Config> Config::Load(const LoadRequest& request) {
  ConfigLoader loader;
  SNOWCAR_RETURN_IF_ERROR(Prepare(loader, request));
  return loader.Finish();
}

Result<std::string> ReadValueFromFile(std::string_view key, const std::string& path) {
  const OptionSpec* spec = FindOption(key);
  if (spec == nullptr) return Status::InvalidArgument("unknown key '" + std::string(key) + "'");
  auto content = ReadValueFile(path);
  if (!content.ok()) {
    return Status(content.status().code(),
                  std::string(key) + ".file: " + content.status().message());
  }
  if (IsSecretKey(*spec, key)) redact::RegisterSecret(*content);
  auto normalized = NormalizeValue(*spec, *content);
  if (!normalized.ok()) {
    // NormalizeValue's messages never repeat the value.
    return Status::InvalidArgument(std::string(key) + ": the value in file " + path + " " +
                                   normalized.status().message());
  }
  return normalized;
}

Result<Config> Config::FromMap(const std::map<std::string, std::string>& values) {
  ConfigLoader loader;
  loader.AddMap(values);
  return loader.Finish();
}

}  // namespace snowcar::config
