// SPDX-License-Identifier: Apache-2.0
#include "value_checks.h"

#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <iterator>
#include <set>

#include "snowcar/common/text.h"
#include "snowcar/common/time.h"
#include "value_normalize.h"

namespace snowcar::config {

std::string CheckHostPort(std::string_view value) {
  if (value.empty()) return "";  // empty means "off"
  const size_t colon = value.rfind(':');
  if (colon == std::string_view::npos) return "must be host:port, e.g. 0.0.0.0:9464";
  const std::string_view host = value.substr(0, colon);
  const std::string_view port = value.substr(colon + 1);
  if (host.empty()) return "must name a host before the ':' (0.0.0.0 listens on all interfaces)";
  if (host.front() == '[' ? host.back() != ']' : host.find(':') != std::string_view::npos) {
    return "an IPv6 host must be written in brackets, e.g. [::1]:9464";
  }
  const bool digits =
      !port.empty() && port.size() <= 5 &&
      std::all_of(port.begin(), port.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
  if (!digits || std::stoi(std::string(port)) > 65535) {
    return "port must be a number from 0 to 65535";
  }
  return "";
}

std::string RefuseTopicsRegex(std::string_view /*value*/) {
  return "is not supported: the sink consumes the topics listed in snow.sink.topics (or "
         "topics); list them there";
}

namespace {

bool IsNameChar(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

bool IsTopicChar(unsigned char c) {
  return std::isalnum(c) != 0 || c == '.' || c == '_' || c == '-';
}

constexpr size_t kMaxTableName = 80;
constexpr size_t kMaxTopicName = 249;

std::string CheckIdentifier(std::string_view value, std::string_view what) {
  if (value.empty()) return "";
  if (value.size() > kMaxTableName) {
    return "a " + std::string(what) + " has at most " + std::to_string(kMaxTableName) +
           " characters";
  }
  if (!std::all_of(value.begin(), value.end(), [](unsigned char c) { return IsNameChar(c); })) {
    return "'" + std::string(value) + "' is not a " + std::string(what) +
           " (allowed: lower-case letters, digits and '_', e.g. incident or u_order)";
  }
  return "";
}

}  // namespace

std::string CheckTableName(std::string_view value) { return CheckIdentifier(value, "table name"); }

std::string CheckTableNameList(std::string_view value) {
  for (const std::string& item : SplitList(value)) {
    std::string problem = CheckTableName(item);
    if (!problem.empty()) return problem;
  }
  return "";
}

std::string CheckColumnName(std::string_view value) {
  return CheckIdentifier(value, "column name");
}

std::string CheckFieldRenames(std::string_view value) {
  std::set<std::string> sources;
  std::set<std::string> targets;
  for (const std::string& item : SplitList(value)) {
    const size_t colon = item.find(':');
    if (colon == std::string::npos || item.find(':', colon + 1) != std::string::npos) {
      return "'" + item + "' is not a from:to pair (e.g. title:short_description)";
    }
    const std::string from = Trim(std::string_view(item).substr(0, colon));
    const std::string to = Trim(std::string_view(item).substr(colon + 1));
    if (from.empty() || to.empty()) {
      return "'" + item + "' needs a name on both sides of ':' (e.g. title:short_description)";
    }
    if (!sources.insert(from).second) return "'" + from + "' is renamed more than once";
    if (!targets.insert(to).second) return "more than one field is renamed to '" + to + "'";
  }
  return "";
}

std::string CheckTopicName(std::string_view value) {
  if (value.empty()) return "";
  if (value.size() > kMaxTopicName || value == "." || value == ".." ||
      !std::all_of(value.begin(), value.end(), [](unsigned char c) { return IsTopicChar(c); })) {
    return "'" + std::string(value) +
           "' is not a Kafka topic name (allowed: letters, digits, '.', '_' and '-', at most " +
           std::to_string(kMaxTopicName) + " characters)";
  }
  return "";
}

std::string CheckGroupInstanceId(std::string_view value) {
  // Kafka's rule for group.instance.id: the same characters and length as a topic name.
  if (value.empty()) return "";
  if (value.size() > kMaxTopicName ||
      !std::all_of(value.begin(), value.end(), [](unsigned char c) { return IsTopicChar(c); })) {
    return "is not a Kafka group instance id (allowed: letters, digits, '.', '_' and '-', at "
           "most " +
           std::to_string(kMaxTopicName) + " characters)";
  }
  return "";
}

std::string CheckNotBlank(std::string_view value) {
  return value.empty() ? "must not be empty" : "";
}

std::string CheckSocketPath(std::string_view value) {
  if (value.empty()) return "must not be empty";
  // bind(2) needs the path and its terminating NUL in sockaddr_un::sun_path.
  constexpr size_t kMax = sizeof(sockaddr_un::sun_path) - 1;
  if (value.size() > kMax) {
    return "is " + std::to_string(value.size()) + " bytes; a Unix socket path may have at most " +
           std::to_string(kMax);
  }
  return "";
}

namespace {

bool IsAliasChar(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'; }

bool IsFieldChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

}  // namespace

std::string CheckTableAliasList(std::string_view value) {
  std::set<std::string> seen;
  for (const std::string& alias : SplitList(value)) {
    if (!std::all_of(alias.begin(), alias.end(), IsAliasChar)) {
      return "holds the alias '" + alias.substr(0, 80) +
             "'; an alias is lower-case letters, digits and '_' (^[a-z0-9_]+$)";
    }
    if (!seen.insert(alias).second) return "lists the alias '" + alias + "' twice";
  }
  return "";
}

std::string CheckSnowDateTime(std::string_view value) {
  if (value.empty() || ParseSnowTimestamp(value).ok()) return "";  // empty: the default
  return "is not a UTC date-time written YYYY-MM-DD HH:MM:SS (e.g. 2024-01-31 00:00:00)";
}

std::string CheckPlainFieldName(std::string_view value) {
  if (value.empty()) return "must name a field";
  if (value.find('.') != std::string_view::npos) {
    return "is dot-walked; name a field of the table itself (the cursor cannot follow a field "
           "of a referenced record)";
  }
  if (!std::all_of(value.begin(), value.end(), IsFieldChar)) {
    return "is not a field name (letters, digits and '_')";
  }
  return "";
}

std::string CheckFieldList(std::string_view value) {
  for (const std::string& field : SplitList(value)) {
    if (!std::all_of(field.begin(), field.end(), IsFieldChar) || field.empty()) {
      return "holds '" + field.substr(0, 80) +
             "', which is not a field name (letters, digits and '_'; no dot-walking)";
    }
  }
  return "";
}

std::string CheckBaseQuery(std::string_view value) {
  // The source normalizes the query by dropping empty terms, which would turn a doubled caret
  // (read by some as an escaped '^' inside a value) into a term separator: the query sent
  // would differ from the one written. Refused instead of guessed.
  if (const size_t at = value.find("^^"); at != std::string_view::npos) {
    return "contains '^^' at offset " + std::to_string(at) +
           "; an empty term or a caret inside a value has no documented meaning in an encoded "
           "query: separate conditions with a single '^'";
  }
  // Terms are separated by '^'; a branch after ^NQ starts with "NQ", and a run of them is a run
  // of empty branches. ORDERBYDESC is caught too.
  size_t start = 0;
  while (start <= value.size()) {
    size_t end = value.find('^', start);
    if (end == std::string_view::npos) end = value.size();
    std::string_view term = TrimSpace(value.substr(start, end - start));
    // "^NQNQORDERBYx" is read as ^NQ, an empty branch, then ORDERBYx (the fuzzer found it).
    while (term.starts_with("NQ")) term = TrimSpace(term.substr(2));
    if (term.starts_with("ORDERBY")) {
      return "contains '" + std::string(term.substr(0, 80)) +
             "'; ORDERBY is not allowed because the source orders rows by timestamp and id itself";
    }
    // "OR DERBYx": the source joins OR to its condition when it drops blanks, which turns this
    // into ORDERBYx, an ordering and no longer a condition (the keyset fuzzer found it).
    if (term.size() > 2 && term.starts_with("OR") &&
        std::isspace(static_cast<unsigned char>(term[2])) != 0) {
      if (TrimSpace(term.substr(2)).starts_with("DERBY")) {
        return "contains '" + std::string(term.substr(0, 80)) +
               "', which reads as ORDERBY once its blanks are dropped; ORDERBY is not allowed "
               "because the source orders rows by timestamp and id itself";
      }
    }
    start = end + 1;
  }
  if (value.find_first_of("\r\n") != std::string_view::npos) {
    return "contains a line break; an encoded query is one line";
  }
  return "";
}

bool IsKafkaFileProperty(std::string_view property) {
  static constexpr std::string_view kFileProperties[] = {
      "ssl.ca.location",       "ssl.certificate.location", "ssl.key.location",
      "ssl.keystore.location", "ssl.crl.location",         "sasl.kerberos.keytab"};
  return std::find(std::begin(kFileProperties), std::end(kFileProperties), property) !=
         std::end(kFileProperties);
}

std::string CheckKafkaFileProperty(std::string_view property, std::string_view path) {
  if (!IsKafkaFileProperty(property)) return "";
  const bool ca = property == "ssl.ca.location";
  if (path.empty() || (ca && path == "probe")) return "";
  const std::string file(path);
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) return std::strerror(errno);
  if (S_ISDIR(st.st_mode) && !ca) return "it is a directory";
  if (::access(file.c_str(), R_OK) != 0) return std::strerror(errno);
  return "";
}

}  // namespace snowcar::config
