// SPDX-License-Identifier: Apache-2.0
#include "snowcar/common/redact.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <mutex>
#include <shared_mutex>
#include <utility>
#include <vector>

#include "snowcar/common/base64.h"

namespace snowcar::redact {
namespace {

std::shared_mutex& Mu() {
  static std::shared_mutex mu;
  return mu;
}
std::vector<std::string>& Secrets() {
  static std::vector<std::string> secrets;
  return secrets;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

void ReplaceAll(std::string& text, std::string_view needle, std::string_view with) {
  if (needle.empty()) return;
  size_t pos = 0;
  while ((pos = text.find(needle, pos)) != std::string::npos) {
    text.replace(pos, needle.size(), with);
    pos += with.size();
  }
}

bool IsTokenChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' ||
         c == '~' || c == '+' || c == '/' || c == '=';
}

// "Bearer abc..." -> "Bearer ***". The scheme is matched as HTTP writes it ("Basic", "Bearer",
// or all upper/lower case for Bearer) and the credential must be at least 8 token characters,
// so prose such as "auth.type=basic and ..." is left alone.
void MaskSchemes(std::string& text) {
  static constexpr std::array<std::string_view, 5> kSchemes = {"Bearer ", "bearer ", "BEARER ",
                                                               "Basic ", "BASIC "};
  constexpr size_t kMinCredential = 8;
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    bool matched = false;
    for (auto scheme : kSchemes) {
      if (text.compare(i, scheme.size(), scheme) == 0) {
        const size_t j = i + scheme.size();
        size_t end = j;
        while (end < text.size() && IsTokenChar(text[end])) ++end;
        if (end - j >= kMinCredential) {
          out.append(text, i, scheme.size());
          out += "***";
          i = end;
          matched = true;
          break;
        }
      }
    }
    if (!matched) out += text[i++];
  }
  text = std::move(out);
}

// name":"value"  and  name=value (form / query) for secret-carrying names.
void MaskNamedFields(std::string& text) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    // Find an identifier-like run.
    if (std::isalpha(static_cast<unsigned char>(text[i])) || text[i] == '_') {
      size_t j = i;
      while (j < text.size() && (std::isalnum(static_cast<unsigned char>(text[j])) ||
                                 text[j] == '_' || text[j] == '.' || text[j] == '-')) {
        ++j;
      }
      std::string_view name(text.data() + i, j - i);
      out.append(name);
      i = j;
      if (!IsSecretName(name)) continue;
      // JSON: name" : "value"
      size_t k = i;
      if (k < text.size() && text[k] == '"') {
        ++k;
        while (k < text.size() && text[k] == ' ') ++k;
        if (k < text.size() && text[k] == ':') {
          ++k;
          while (k < text.size() && text[k] == ' ') ++k;
          if (k < text.size() && text[k] == '"') {
            size_t end = k + 1;
            while (end < text.size() && text[end] != '"') {
              if (text[end] == '\\') ++end;
              ++end;
            }
            out.append(text, i, k + 1 - i);
            out += "***";
            i = std::min(end, text.size());
          }
        }
        continue;
      }
      // form/query/properties: name=value
      if (k < text.size() && text[k] == '=') {
        size_t end = k + 1;
        while (end < text.size() && text[end] != '&' && text[end] != ' ' && text[end] != ',' &&
               text[end] != '"' && text[end] != '\n') {
          ++end;
        }
        out += '=';
        if (end > k + 1) out += "***";
        i = end;
      }
      continue;
    }
    out += text[i++];
  }
  text = std::move(out);
}

// Calls `on_user_info(start, length)` for the user-info of each URL in `text`, last first so
// the callback may rewrite it. The authority ends at the first '/', '?', '#', blank or quote;
// its last '@' ends the user-info, as RFC 3986 reads it.
template <typename F>
void ForEachUrlUserInfo(std::string_view text, F&& on_user_info) {
  const auto ends_authority = [](char c) {
    return c == '/' || c == '?' || c == '#' || c == '"' || c == '\'' || c == '<' || c == '>' ||
           std::isspace(static_cast<unsigned char>(c)) != 0;
  };
  std::vector<std::pair<size_t, size_t>> spans;
  size_t pos = 0;
  while ((pos = text.find("://", pos)) != std::string_view::npos) {
    const size_t start = pos + 3;
    size_t end = start;
    while (end < text.size() && !ends_authority(text[end])) ++end;
    const size_t at = text.substr(start, end - start).rfind('@');
    if (at != std::string_view::npos && at > 0) spans.emplace_back(start, at);
    pos = end;
  }
  for (auto it = spans.rbegin(); it != spans.rend(); ++it) on_user_info(it->first, it->second);
}

// "scheme://user:password@host" -> "scheme://user:***@host", and "scheme://token@host" ->
// "scheme://***@host": a URL's user-info carries credentials whether or not the value was
// registered (a URL refused by the configuration, a Kafka property, a peer's error text).
void MaskUrlUserInfo(std::string& text) {
  ForEachUrlUserInfo(text, [&](size_t start, size_t length) {
    const std::string_view user_info(text.data() + start, length);
    const size_t colon = user_info.find(':');
    std::string shown =
        colon == std::string_view::npos ? "***" : std::string(user_info.substr(0, colon)) + ":***";
    text.replace(start, length, shown);
  });
}

}  // namespace

void RegisterSecret(std::string_view value) {
  if (value.size() < 4) return;
  std::unique_lock lock(Mu());
  auto& secrets = Secrets();
  if (std::find(secrets.begin(), secrets.end(), value) == secrets.end()) {
    secrets.emplace_back(value);
    // Longest first, so a secret that contains another is masked whole.
    std::sort(secrets.begin(), secrets.end(),
              [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  }
}

void RegisterUrlSecrets(std::string_view text) {
  ForEachUrlUserInfo(text, [&](size_t start, size_t length) {
    // The password alone (its base64 forms are masked at every alignment, so a Basic
    // header of user:password is covered); a user-info without ':' is a token, all secret.
    // The user name stays readable: "https://svc:***@host" says whose credentials they are.
    const std::string_view user_info = text.substr(start, length);
    const size_t colon = user_info.find(':');
    RegisterSecret(colon == std::string_view::npos ? user_info : user_info.substr(colon + 1));
  });
}

bool IsSecretName(std::string_view name) {
  const std::string lower = Lower(name);
  for (std::string_view word :
       {"password", "secret", "token", "authorization", "credential", "cookie"}) {
    if (lower.find(word) != std::string::npos) return true;
  }
  return IsSensitiveKafkaProperty(lower);
}

const std::vector<std::string_view>& SensitiveKafkaProperties() {
  static const std::vector<std::string_view> names = {
      // Marked sensitive in librdkafka's property table (never logged or dumped by it).
      "sasl.username",
      "sasl.password",
      "sasl.oauthbearer.config",
      "sasl.oauthbearer.client.secret",
      "ssl.key.location",
      "ssl.key.password",
      "ssl.key.pem",
      "ssl_key",
      "ssl.ca.pem",
      "ssl.keystore.password",
      // Java client keys librdkafka refuses; they carry credentials all the same.
      "sasl.jaas.config",
      "ssl.truststore.password",
      "ssl.keystore.key",
  };
  return names;
}

bool IsSensitiveKafkaProperty(std::string_view name) {
  const std::string lower = Lower(name);
  const std::string_view text = lower;
  for (const std::string_view property : SensitiveKafkaProperties()) {
    if (text == property) return true;
    if (text.size() > property.size() && text.ends_with(property) &&
        text[text.size() - property.size() - 1] == '.') {
      return true;
    }
  }
  return false;
}

std::string Mask(std::string_view text) {
  std::string out(text);
  // Credential schemes first: a Basic header carries base64(user:password) whose encoded
  // secret is only partly matched below, and masking the whole credential leaves no tail.
  MaskSchemes(out);
  {
    std::shared_lock lock(Mu());
    for (const auto& secret : Secrets()) {
      ReplaceAll(out, secret, kRedacted);
      // user:password pairs travel base64-encoded in Basic auth; catch the encoded secret
      // at each of the three byte alignments.
      for (size_t shift = 0; shift < 3; ++shift) {
        std::string padded(shift, 'x');
        padded += secret;
        std::string enc = Base64Encode(padded);
        // Drop the characters influenced by the padding prefix and by the unknown suffix.
        const size_t skip = (shift * 4 + 2) / 3;
        if (enc.size() > skip + 4) {
          std::string core = enc.substr(skip, enc.size() - skip - 4);
          if (core.size() >= 6) ReplaceAll(out, core, kRedacted);
        }
      }
    }
  }
  MaskNamedFields(out);
  MaskUrlUserInfo(out);
  return out;
}

void ClearForTest() {
  std::unique_lock lock(Mu());
  Secrets().clear();
}

}  // namespace snowcar::redact
