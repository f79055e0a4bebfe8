// SPDX-License-Identifier: Apache-2.0
// The emulator's view of one HTTP exchange, independent of Beast: routes build an
// EmulatorResponse from an EmulatorRequest, and the listener decides how (and whether) the
// bytes go out.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "snowcar/common/text.h"

namespace snowcar::emulator {

struct HttpHeader {
  std::string name;
  std::string value;
};

struct EmulatorRequest {
  std::string method;  // upper-case, e.g. "GET"
  std::string target;  // path and query as received
  std::string path;    // target before '?'
  std::string query;   // target after '?', raw (still percent-encoded)
  std::vector<HttpHeader> headers;
  std::string body;
  // "127.0.0.1:40123": the Host header, or the listener's address when absent. Links and
  // Location headers are built on it, as an instance builds them on its own host name.
  std::string host;

  // First header named `name` (case-insensitive), or nullptr.
  const std::string* FindHeader(std::string_view name) const;
};

// How the listener delivers an EmulatorResponse.
enum class Delivery {
  kFull,            // the whole response
  kDropMidBody,     // status line, headers and part of the body, then close
  kDropBeforeReply  // nothing: close the connection (the request took effect)
};

struct EmulatorResponse {
  int status = 200;
  std::vector<HttpHeader> headers;
  std::string body;
  Delivery delivery = Delivery::kFull;
  int64_t delay_ms = 0;  // latency knob: wait this long before sending
  bool close = false;    // close the connection after this response

  // For the journal.
  bool journaled = true;
  std::string auth = "none";
  std::string user;
  std::string fault;

  void SetHeader(std::string name, std::string value);
  const std::string* FindHeader(std::string_view name) const;
};

// Status line and headers, including Content-Length and Connection, ending in a blank line.
std::string SerializeHead(const EmulatorResponse& response, bool keep_alive);

}  // namespace snowcar::emulator
