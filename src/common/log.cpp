// SPDX-License-Identifier: Apache-2.0
#include "snowcar/common/log.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>

#include "snowcar/common/json_escape.h"
#include "snowcar/common/redact.h"
#include "snowcar/common/time.h"

namespace snowcar::log {
namespace {

std::atomic<Level> g_level{Level::kInfo};
std::atomic<Format> g_format{Format::kJson};
std::atomic<int> g_fd{2};

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

}  // namespace

Result<Level> ParseLevel(std::string_view text) {
  const std::string l = Lower(text);
  if (l == "trace") return Level::kTrace;
  if (l == "debug") return Level::kDebug;
  if (l == "info") return Level::kInfo;
  if (l == "warn" || l == "warning") return Level::kWarn;
  if (l == "error") return Level::kError;
  if (l == "off") return Level::kOff;
  return Status::InvalidArgument("unknown log level '" + std::string(text) +
                                 "' (allowed: trace, debug, info, warn, error, off)");
}

std::string_view LevelName(Level level) {
  switch (level) {
    case Level::kTrace:
      return "trace";
    case Level::kDebug:
      return "debug";
    case Level::kInfo:
      return "info";
    case Level::kWarn:
      return "warn";
    case Level::kError:
      return "error";
    case Level::kOff:
      return "off";
  }
  return "info";
}

Result<Format> ParseFormat(std::string_view text) {
  const std::string l = Lower(text);
  if (l == "json") return Format::kJson;
  if (l == "text") return Format::kText;
  return Status::InvalidArgument("unknown log format '" + std::string(text) +
                                 "' (allowed: json, text)");
}

void SetLevel(Level level) { g_level.store(level); }
void SetFormat(Format format) { g_format.store(format); }
void SetFd(int fd) { g_fd.store(fd); }
bool Enabled(Level level) { return level != Level::kOff && level >= g_level.load(); }

void Write(Level level, std::string_view event, std::initializer_list<Field> fields) {
  const std::string ts = FormatIso8601Millis(SystemClock::Instance().NowMillis());
  std::string line;
  line.reserve(128);
  if (g_format.load() == Format::kJson) {
    line += "{\"ts\":\"" + ts + "\",\"level\":\"";
    line += LevelName(level);
    line += "\",\"event\":";
    AppendJsonString(line, event);
    for (const auto& f : fields) {
      line += ',';
      AppendJsonString(line, f.key);
      line += ':';
      if (f.raw) {
        line += f.value;
      } else {
        AppendJsonString(line,
                         redact::IsSecretName(f.key) ? std::string(redact::kRedacted) : f.value);
      }
    }
    line += '}';
  } else {
    line += ts;
    line += ' ';
    std::string lvl(LevelName(level));
    for (auto& c : lvl) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    line += lvl;
    line += ' ';
    line += event;
    for (const auto& f : fields) {
      line += ' ';
      line += f.key;
      line += '=';
      const std::string& v = redact::IsSecretName(f.key) ? std::string(redact::kRedacted) : f.value;
      // Quoted (JSON escapes) when a value could be misread: spaces, quotes, '=' and control
      // characters. A raw line feed from a remote error message would otherwise start a
      // second, forged log line.
      const bool quote = v.empty() || std::any_of(v.begin(), v.end(), [](unsigned char c) {
                           return c == ' ' || c == '"' || c == '=' || c < 0x20 || c == 0x7f;
                         });
      if (quote) {
        AppendJsonString(line, v);
      } else {
        line += v;
      }
    }
  }
  line = redact::Mask(line);
  line += '\n';
  const int fd = g_fd.load();
  size_t off = 0;
  while (off < line.size()) {
    const ssize_t n = ::write(fd, line.data() + off, line.size() - off);
    if (n <= 0) break;  // nowhere to report a failing log sink; drop the rest of this line
    off += static_cast<size_t>(n);
  }
}

}  // namespace snowcar::log
