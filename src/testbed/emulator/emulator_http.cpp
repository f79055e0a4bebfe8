// SPDX-License-Identifier: Apache-2.0
#include "testbed/emulator/emulator_http.h"

#include <cctype>

namespace snowcar::emulator {

const std::string* EmulatorRequest::FindHeader(std::string_view name) const {
  for (const auto& h : headers) {
    if (EqualsIgnoreCase(h.name, name)) return &h.value;
  }
  return nullptr;
}

void EmulatorResponse::SetHeader(std::string name, std::string value) {
  for (auto& h : headers) {
    if (EqualsIgnoreCase(h.name, name)) {
      h.value = std::move(value);
      return;
    }
  }
  headers.push_back({std::move(name), std::move(value)});
}

const std::string* EmulatorResponse::FindHeader(std::string_view name) const {
  for (const auto& h : headers) {
    if (EqualsIgnoreCase(h.name, name)) return &h.value;
  }
  return nullptr;
}

std::string SerializeHead(const EmulatorResponse& response, bool keep_alive) {
  std::string out;
  out.reserve(512);
  out += "HTTP/1.1 ";
  out += std::to_string(response.status);
  out += ' ';
  out += HttpReasonPhrase(response.status);
  out += "\r\n";
  for (const auto& h : response.headers) {
    out += h.name;
    out += ": ";
    out += h.value;
    out += "\r\n";
  }
  // 204 carries no body and, per RFC 9110, no Content-Length either.
  if (response.status != 204) {
    out += "Content-Length: ";
    out += std::to_string(response.body.size());
    out += "\r\n";
  }
  out += keep_alive ? "Connection: keep-alive\r\n" : "Connection: close\r\n";
  out += "\r\n";
  return out;
}

}  // namespace snowcar::emulator
