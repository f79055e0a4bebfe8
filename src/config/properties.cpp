// SPDX-License-Identifier: Apache-2.0
// Hand-written: no Debian C++ library reads java.util.Properties text (the format is Java's).
#include "snowcar/config/properties.h"

#include <cstdint>
#include <map>

#include "snowcar/common/file_read.h"

namespace snowcar::config {
namespace {

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\f'; }

// A logical line: natural lines joined by trailing-backslash continuations.
struct LogicalLine {
  std::string text;
  int line = 0;
};

// Number of backslashes ending `s`: odd means the line break itself is escaped.
size_t TrailingBackslashes(std::string_view s) {
  size_t n = 0;
  while (n < s.size() && s[s.size() - 1 - n] == '\\') ++n;
  return n;
}

// Splits on \n, \r\n and \r, the three line ends Java accepts.
std::vector<std::string_view> NaturalLines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n' || text[i] == '\r') {
      lines.push_back(text.substr(start, i - start));
      if (text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      start = i + 1;
    }
  }
  if (start < text.size()) lines.push_back(text.substr(start));
  return lines;
}

std::vector<LogicalLine> LogicalLines(std::string_view text) {
  const std::vector<std::string_view> natural = NaturalLines(text);
  std::vector<LogicalLine> out;
  for (size_t i = 0; i < natural.size(); ++i) {
    std::string_view first = natural[i];
    size_t lead = 0;
    while (lead < first.size() && IsBlank(first[lead])) ++lead;
    first.remove_prefix(lead);
    // Blank and comment lines never continue, even when they end in a backslash.
    if (first.empty() || first.front() == '#' || first.front() == '!') continue;
    LogicalLine logical{std::string(first), static_cast<int>(i) + 1};
    while (TrailingBackslashes(logical.text) % 2 == 1) {
      logical.text.pop_back();
      if (i + 1 >= natural.size()) break;  // a continuation at the end of input ends the entry
      std::string_view next = natural[++i];
      size_t skip = 0;
      while (skip < next.size() && IsBlank(next[skip])) ++skip;
      logical.text.append(next.substr(skip));
    }
    out.push_back(std::move(logical));
  }
  return out;
}

void AppendUtf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// Reads the 4 hex digits of a \u escape starting at s[pos]; -1 when malformed.
int64_t Hex4(std::string_view s, size_t pos) {
  if (pos + 4 > s.size()) return -1;
  int64_t v = 0;
  for (size_t k = pos; k < pos + 4; ++k) {
    const char c = s[k];
    int d;
    if (c >= '0' && c <= '9') {
      d = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      d = c - 'a' + 10;
    } else if (c >= 'A' && c <= 'F') {
      d = c - 'A' + 10;
    } else {
      return -1;
    }
    v = v * 16 + d;
  }
  return v;
}

// Unescapes s[begin, end). Returns an error text (without position) or "" on success.
std::string Unescape(std::string_view s, std::string& out) {
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\') {
      out += s[i];
      continue;
    }
    if (++i >= s.size()) break;  // a lone trailing backslash (only at end of input) vanishes
    const char c = s[i];
    switch (c) {
      case 't':
        out += '\t';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 'f':
        out += '\f';
        break;
      case 'u': {
        const int64_t unit = Hex4(s, i + 1);
        if (unit < 0) {
          return "malformed \\u escape '\\u" + std::string(s.substr(i + 1, 4)) +
                 "' (expected 4 hex digits)";
        }
        i += 4;
        uint32_t cp = static_cast<uint32_t>(unit);
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          // A high surrogate must be followed by an escaped low surrogate: \uD83D\uDE00.
          const int64_t low =
              (i + 2 < s.size() && s[i + 1] == '\\' && s[i + 2] == 'u') ? Hex4(s, i + 3) : -1;
          if (low < 0xDC00 || low > 0xDFFF) {
            return "\\u escape " + std::string(s.substr(i - 5, 6)) +
                   " is a high surrogate without a following low surrogate \\uDC00-\\uDFFF";
          }
          cp = 0x10000 + ((cp - 0xD800) << 10) + (static_cast<uint32_t>(low) - 0xDC00);
          i += 6;
        } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
          return "\\u escape " + std::string(s.substr(i - 5, 6)) +
                 " is a low surrogate without a preceding high surrogate";
        }
        AppendUtf8(out, cp);
        break;
      }
      default:
        out += c;
        break;  // \\ \= \: \# \! \space and any other char stand for themselves
    }
  }
  return "";
}

// Position where the key ends: the first unescaped '=', ':' or blank.
size_t KeyEnd(std::string_view s) {
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\') {
      ++i;
      continue;
    }
    if (s[i] == '=' || s[i] == ':' || IsBlank(s[i])) return i;
  }
  return s.size();
}

}  // namespace

Properties ParsePropertiesCollecting(std::string_view text, std::string_view origin,
                                     std::vector<std::string>& errors) {
  Properties props;
  // A byte-order mark some Windows editors write would otherwise become part of the first key.
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  std::map<std::string, size_t> index;  // key -> position in props.entries
  for (const LogicalLine& logical : LogicalLines(text)) {
    const std::string_view s = logical.text;
    const std::string where = std::string(origin) + ":" + std::to_string(logical.line) + ": ";
    const size_t key_end = KeyEnd(s);
    size_t v = key_end;
    while (v < s.size() && IsBlank(s[v])) ++v;
    if (v < s.size() && (s[v] == '=' || s[v] == ':')) ++v;
    while (v < s.size() && IsBlank(s[v])) ++v;

    Property prop;
    prop.line = logical.line;
    std::string problem = Unescape(s.substr(0, key_end), prop.key);
    if (problem.empty()) problem = Unescape(s.substr(v), prop.value);
    if (!problem.empty()) {
      errors.push_back(where + problem);
      continue;
    }
    if (prop.key.empty()) {
      errors.push_back(where + "entry has no key (a line cannot start with '=' or ':')");
      continue;
    }
    auto [it, inserted] = index.emplace(prop.key, props.entries.size());
    if (inserted) {
      props.entries.push_back(std::move(prop));
    } else {
      Property& earlier = props.entries[it->second];
      props.notes.push_back(where + "key '" + prop.key + "' repeats line " +
                            std::to_string(earlier.line) + "; the last value wins");
      earlier = std::move(prop);
    }
  }
  return props;
}

Result<Properties> ParseProperties(std::string_view text, std::string_view origin) {
  std::vector<std::string> errors;
  Properties props = ParsePropertiesCollecting(text, origin, errors);
  if (!errors.empty()) {
    std::string message = std::to_string(errors.size()) + " malformed properties line" +
                          (errors.size() == 1 ? "" : "s") + ":";
    for (const auto& e : errors) message += "\n  " + e;
    return Status::InvalidArgument(message);
  }
  return props;
}

Result<Properties> ReadPropertiesFile(const std::string& path) {
  SNOWCAR_ASSIGN_OR_RETURN(const std::string text, ReadFileBounded(path, kConfigFileLimit));
  return ParseProperties(text, path);
}

namespace {

std::string Escape(std::string_view s, bool is_key) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  // A key opening with a byte-order mark would lose it when it is the file's first entry
  // (ParsePropertiesCollecting drops a leading BOM); the escape keeps it.
  if (is_key && s.starts_with("\xEF\xBB\xBF")) {
    out += "\\uFEFF";
    i = 3;
  }
  for (; i < s.size(); ++i) {
    const char c = s[i];
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\f':
        out += "\\f";
        break;
      case '=':
      case ':':
        if (is_key) out += '\\';
        out += c;
        break;
      case '#':
      case '!':
        if (i == 0) out += '\\';  // would otherwise start a comment line
        out += c;
        break;
      case ' ':
        if (is_key || i == 0) out += '\\';  // a key ends at a blank; a value's leading blanks drop
        out += c;
        break;
      default:
        out += c;
        break;
    }
  }
  return out;
}

}  // namespace

std::string EscapePropertiesKey(std::string_view key) { return Escape(key, true); }
std::string EscapePropertiesValue(std::string_view value) { return Escape(value, false); }

}  // namespace snowcar::config
