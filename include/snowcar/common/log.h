// SPDX-License-Identifier: Apache-2.0
// Structured logging: one line per event on stderr, JSON (default) or plain text.
//
//   SNOWCAR_LOG(kInfo, "socket.listening", {{"path", path}});
//
// Every line goes through redact::Mask, so a secret that slips into a message or a field
// value is still masked. Thread-safe: one write(2) per line, so lines never interleave.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

#include "snowcar/common/status.h"

namespace snowcar::log {

enum class Level { kTrace = 0, kDebug, kInfo, kWarn, kError, kOff };
enum class Format { kJson, kText };

// "trace", "debug", "info", "warn", "error", "off" (case-insensitive).
Result<Level> ParseLevel(std::string_view text);
std::string_view LevelName(Level level);
Result<Format> ParseFormat(std::string_view text);

void SetLevel(Level level);
void SetFormat(Format format);
// Where lines go; defaults to stderr (fd 2). Tests point it at a pipe or file.
void SetFd(int fd);
bool Enabled(Level level);

struct Field {
  Field(std::string_view k, std::string v) : key(k), value(std::move(v)) {}
  Field(std::string_view k, const char* v) : key(k), value(v) {}
  Field(std::string_view k, std::string_view v) : key(k), value(v) {}
  template <typename N, typename = std::enable_if_t<std::is_arithmetic_v<N>>>
  Field(std::string_view k, N n) : key(k), value(std::to_string(n)), raw(true) {}
  Field(std::string_view k, bool b) : key(k), value(b ? "true" : "false"), raw(true) {}

  std::string_view key;
  std::string value;
  bool raw = false;  // numbers and booleans stay unquoted in JSON
};

void Write(Level level, std::string_view event, std::initializer_list<Field> fields);

}  // namespace snowcar::log

#define SNOWCAR_LOG(level, event, ...)                                         \
  do {                                                                         \
    if (::snowcar::log::Enabled(::snowcar::log::Level::level)) {               \
      ::snowcar::log::Write(::snowcar::log::Level::level, event, __VA_ARGS__); \
    }                                                                          \
  } while (0)
