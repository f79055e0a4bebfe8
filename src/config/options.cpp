// SPDX-License-Identifier: Apache-2.0
// Lookups over the option table (the table itself is in option_table.cpp).
#include "snowcar/config/options.h"

#include <map>

#include "snowcar/common/redact.h"

namespace snowcar::config {

std::string_view OptionTypeName(OptionType type) {
  switch (type) {
    case OptionType::kString:
      return "string";
    case OptionType::kInt:
      return "int";
    case OptionType::kBool:
      return "bool";
    case OptionType::kEnum:
      return "enum";
    case OptionType::kList:
      return "list";
    case OptionType::kUrl:
      return "url";
    case OptionType::kPassword:
      return "password";
  }
  return "?";
}

bool MatchesPattern(std::string_view pattern, std::string_view key) {
  while (!pattern.empty()) {
    if (pattern.front() == '<') {
      const size_t close = pattern.find('>');
      const std::string_view rest =
          close == std::string_view::npos ? std::string_view() : pattern.substr(close + 1);
      // A placeholder takes at least one character; try every split so that a placeholder
      // followed by literal text (".table") can itself contain that text.
      for (size_t take = 1; take <= key.size(); ++take) {
        if (MatchesPattern(rest, key.substr(take))) return true;
      }
      return false;
    }
    if (key.empty() || key.front() != pattern.front()) return false;
    pattern.remove_prefix(1);
    key.remove_prefix(1);
  }
  return key.empty();
}

const OptionSpec* FindOption(std::string_view key) {
  // Built once; the table never changes after start.
  static const auto* const exact = [] {
    auto* index = new std::map<std::string_view, const OptionSpec*, std::less<>>();
    for (const OptionSpec& spec : Options()) {
      if (!spec.is_pattern()) index->emplace(spec.name, &spec);
    }
    return index;
  }();
  if (const auto it = exact->find(key); it != exact->end()) return it->second;
  for (const OptionSpec& spec : Options()) {
    if (spec.is_pattern() && MatchesPattern(spec.name, key)) return &spec;
  }
  return nullptr;
}

bool IsSecretKey(const OptionSpec& spec, std::string_view key) {
  if (spec.is_secret()) return true;
  if (!spec.is_pattern() || spec.ignored) return false;
  // Members of a family (kafka.sasl.password) are secret when their last part says so (the
  // whole name would also catch e.g. kafka.sasl.oauthbearer.token.endpoint.url), or when they
  // name a property librdkafka keeps secret (kafka.ssl.key.pem, kafka.sasl.username).
  if (redact::IsSensitiveKafkaProperty(key)) return true;
  const size_t dot = key.rfind('.');
  return redact::IsSecretName(dot == std::string_view::npos ? key : key.substr(dot + 1));
}

}  // namespace snowcar::config
