// SPDX-License-Identifier: Apache-2.0
// Config getters: typed reads of the values ConfigLoader validated.
#include "snowcar/config/config.h"

#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "snowcar/common/redact.h"
#include "snowcar/config/options.h"
#include "value_normalize.h"

namespace snowcar::config {
namespace {

[[noreturn]] void Bug(std::string_view key, std::string_view what) {
  std::fprintf(stderr, "snowcar: BUG: config key '%.*s' %.*s\n", static_cast<int>(key.size()),
               key.data(), static_cast<int>(what.size()), what.data());
  std::abort();
}

// The entry declaring `key`; aborts for an undeclared key or a getter/type mismatch.
const OptionSpec& SpecFor(std::string_view key, std::initializer_list<OptionType> types) {
  const OptionSpec* spec = FindOption(key);
  if (spec == nullptr)
    Bug(key, "is not declared in the option table (src/config/option_table.cpp)");
  if (!spec->alias_of.empty()) spec = FindOption(spec->alias_of);
  if (spec->ignored) Bug(key, "is an ignored Kafka Connect key; nothing reads it");
  if (spec->rewritten) Bug(key, "is rewritten onto other keys when loading; read those");
  if (types.size() != 0 && std::find(types.begin(), types.end(), spec->type) == types.end()) {
    Bug(key, "is declared as " + std::string(OptionTypeName(spec->type)) +
                 "; read it with the matching getter");
  }
  return *spec;
}

// An alias reads as the key it stands for.
std::string_view Canonical(std::string_view key) {
  const OptionSpec* spec = FindOption(key);
  return spec != nullptr && !spec->alias_of.empty() ? spec->alias_of : key;
}

// Default of a family member that was not given; kept for the life of the process so a
// reference to it stays valid.
const std::string& PatternDefault(const OptionSpec& spec) {
  static std::mutex mu;
  static std::map<std::string_view, std::string> cache;
  std::lock_guard lock(mu);
  return cache.try_emplace(spec.name, spec.default_value).first->second;
}

}  // namespace

const std::string& Config::GetString(std::string_view key) const {
  const OptionSpec& spec = SpecFor(key, {});
  const auto it = values_.find(Canonical(key));
  return it != values_.end() ? it->second : PatternDefault(spec);
}

int64_t Config::GetInt(std::string_view key) const {
  SpecFor(key, {OptionType::kInt});
  const std::string& text = GetString(key);
  return text.empty() ? 0 : std::stoll(text);
}

bool Config::GetBool(std::string_view key) const {
  SpecFor(key, {OptionType::kBool});
  return GetString(key) == "true";
}

std::vector<std::string> Config::GetList(std::string_view key) const {
  SpecFor(key, {OptionType::kList});
  return SplitList(GetString(key));
}

bool Config::IsSet(std::string_view key) const {
  SpecFor(key, {});
  return explicit_.count(Canonical(key)) != 0;
}

const std::string& Config::ValueFile(std::string_view key) const {
  static const std::string kNone;
  SpecFor(key, {});
  const auto it = value_files_.find(Canonical(key));
  return it == value_files_.end() ? kNone : it->second;
}

std::map<std::string, std::string> Config::WithPrefix(std::string_view prefix) const {
  std::map<std::string, std::string> out;
  for (auto it = values_.lower_bound(prefix); it != values_.end(); ++it) {
    if (!std::string_view(it->first).starts_with(prefix)) break;
    if (!it->second.empty()) out.emplace(it->first.substr(prefix.size()), it->second);
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> Config::Effective() const {
  std::vector<std::pair<std::string, std::string>> out;
  out.reserve(values_.size());
  for (const auto& [key, value] : values_) {
    const bool hide = !value.empty() && IsSecretKey(*FindOption(key), key);
    // Other values still pass the redactor: free-form ones (kafka.sasl.oauthbearer.config)
    // can embed `password=...`, and a registered secret may be reused elsewhere.
    out.emplace_back(key, hide ? std::string(redact::kRedacted) : redact::Mask(value));
  }
  return out;
}

}  // namespace snowcar::config
