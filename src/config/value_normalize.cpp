// SPDX-License-Identifier: Apache-2.0
#include "value_normalize.h"

#include <algorithm>
#include <boost/url/parse.hpp>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <vector>

namespace snowcar::config {

std::string Trim(std::string_view s) {
  const auto blank = [](char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
  };
  while (!s.empty() && blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && blank(s.back())) s.remove_suffix(1);
  return std::string(s);
}

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::vector<std::string> SplitList(std::string_view stored) {
  std::vector<std::string> items;
  size_t start = 0;
  while (start <= stored.size()) {
    size_t comma = stored.find(',', start);
    if (comma == std::string_view::npos) comma = stored.size();
    std::string item = Trim(stored.substr(start, comma - start));
    if (!item.empty()) items.push_back(std::move(item));
    start = comma + 1;
  }
  return items;
}

std::string DescribeAllowed(const OptionSpec& spec) {
  switch (spec.type) {
    case OptionType::kString:
    case OptionType::kPassword:
      return "any text";
    case OptionType::kInt:
      if (spec.min && spec.max) {
        return "a whole number from " + std::to_string(*spec.min) + " to " +
               std::to_string(*spec.max);
      }
      if (spec.min) return "a whole number of at least " + std::to_string(*spec.min);
      if (spec.max) return "a whole number of at most " + std::to_string(*spec.max);
      return "a whole number";
    case OptionType::kBool:
      return "true or false";
    case OptionType::kEnum: {
      std::string out = "one of: ";
      for (size_t i = 0; i < spec.allowed.size(); ++i) {
        if (i > 0) out += ", ";
        out += spec.allowed[i];
      }
      return out;
    }
    case OptionType::kList:
      return "a comma-separated list";
    case OptionType::kUrl:
      return "an http:// or https:// URL with a host";
  }
  return "";
}

namespace {

Status Problem(const OptionSpec& spec, std::string_view what) {
  return Status::InvalidArgument(std::string(what) + " (allowed: " + DescribeAllowed(spec) + ")");
}

Result<std::string> NormalizeInt(const OptionSpec& spec, const std::string& text) {
  std::string_view digits = text;
  if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (digits.empty() || ec == std::errc::invalid_argument || end != digits.data() + digits.size()) {
    return Problem(spec, "is not a whole number");
  }
  if (ec == std::errc::result_out_of_range) return Problem(spec, "is too large");
  if ((spec.min && v < *spec.min) || (spec.max && v > *spec.max)) {
    return Problem(spec, "is out of range");
  }
  return std::to_string(v);
}

Result<std::string> NormalizeUrl(const OptionSpec& spec, const std::string& text) {
  auto parsed = boost::urls::parse_uri(text);
  if (!parsed) return Problem(spec, "is not a valid URL");
  const boost::urls::url_view& url = *parsed;
  const std::string scheme = Lower(url.scheme());
  if (scheme != "http" && scheme != "https") {
    return Problem(spec, "has scheme '" + scheme + "'");
  }
  if (!url.has_authority() || url.encoded_host().empty()) return Problem(spec, "has no host");
  if (url.has_userinfo()) {
    return Problem(spec, "carries credentials; give them in the username/password keys");
  }
  if (url.has_query() || url.has_fragment()) {
    return Problem(spec, "has a query or fragment, which a base URL cannot carry");
  }
  std::string path(url.encoded_path());
  while (!path.empty() && path.back() == '/') path.pop_back();
  return scheme + "://" + std::string(url.encoded_authority()) + path;
}

// "" when `value` holds no control character the key refuses, else what was found. The
// character is named, never shown: a NUL or line break would cut or split the message.
std::string ControlCharacterProblem(const OptionSpec& spec, std::string_view value) {
  for (size_t i = 0; i < value.size(); ++i) {
    const auto c = static_cast<unsigned char>(value[i]);
    if (c >= 0x20 && c != 0x7f) continue;
    if (spec.allow_line_breaks && (c == '\n' || c == '\r' || c == '\t')) continue;
    char code[8];
    std::snprintf(code, sizeof code, "U+%04X", c);
    std::string problem = "contains the control character " + std::string(code);
    if (c == 0) problem += " (NUL, e.g. from a \\u0000 escape)";
    if (c == '\n' || c == '\r') problem += " (a line break)";
    problem += " at byte " + std::to_string(i + 1) + "; control characters are not allowed here";
    return problem;
  }
  return "";
}

}  // namespace

Result<std::string> NormalizeValue(const OptionSpec& spec, std::string_view raw) {
  std::string value;
  switch (spec.type) {
    case OptionType::kPassword:
      value = std::string(raw);  // kept byte for byte: blanks may be part of a secret
      break;
    case OptionType::kString:
      value = Trim(raw);
      break;
    case OptionType::kInt: {
      SNOWCAR_ASSIGN_OR_RETURN(value, NormalizeInt(spec, Trim(raw)));
      break;
    }
    case OptionType::kBool: {
      const std::string lower = Lower(Trim(raw));
      if (lower != "true" && lower != "false") return Problem(spec, "is not a boolean");
      value = lower;
      break;
    }
    case OptionType::kEnum: {
      const std::string lower = Lower(Trim(raw));
      const auto it = std::find_if(spec.allowed.begin(), spec.allowed.end(),
                                   [&](std::string_view a) { return Lower(a) == lower; });
      if (it == spec.allowed.end()) return Problem(spec, "is not allowed");
      value = std::string(*it);
      break;
    }
    case OptionType::kList: {
      for (const std::string& item : SplitList(raw)) {
        if (!value.empty()) value += ',';
        value += item;
      }
      break;
    }
    case OptionType::kUrl: {
      const std::string trimmed = Trim(raw);
      if (!trimmed.empty()) {
        SNOWCAR_ASSIGN_OR_RETURN(value, NormalizeUrl(spec, trimmed));
      }
      break;
    }
  }
  // Checked after trimming: a line break at either end (a secret pasted with its newline into
  // an environment variable) is dropped with the blanks, for every type but a password.
  if (std::string problem = ControlCharacterProblem(spec, value); !problem.empty()) {
    return Status::InvalidArgument(std::move(problem));
  }
  if (spec.check != nullptr) {
    std::string problem = spec.check(value);
    if (!problem.empty()) return Status::InvalidArgument(std::move(problem));
  }
  return value;
}

}  // namespace snowcar::config
