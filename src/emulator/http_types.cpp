#include "emulator/http_types.h"

#include <cctype>

namespace snowcar::emulator::http {

const std::string* Request::FindHeader(std::string_view name) const {
  for (const auto& h : headers) {
    if (EqualsIgnoreCase(h.name, name)) return &h.value;
  }
  return nullptr;
}

void Response::SetHeader(std::string name, std::string value) {
  for (auto& h : headers) {
    if (EqualsIgnoreCase(h.name, name)) {
      h.value = std::move(value);
      return;
    }
  }
  headers.push_back({std::move(name), std::move(value)});
}

const std::string* Response::FindHeader(std::string_view name) const {
  for (const auto& h : headers) {
    if (EqualsIgnoreCase(h.name, name)) return &h.value;
  }
  return nullptr;
}

std::string_view ReasonPhrase(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 201:
      return "Created";
    case 202:
      return "Accepted";
    case 204:
      return "No Content";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 413:
      return "Payload Too Large";
    case 415:
      return "Unsupported Media Type";
    case 429:
      return "Too Many Requests";
    case 500:
      return "Internal Server Error";
    case 502:
      return "Bad Gateway";
    case 503:
      return "Service Unavailable";
    default:
      return "Unknown";
  }
}

std::string SerializeHead(const Response& response, bool keep_alive) {
  std::string out;
  out.reserve(512);
  out += "HTTP/1.1 ";
  out += std::to_string(response.status);
  out += ' ';
  out += ReasonPhrase(response.status);
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

}  // namespace snowcar::emulator::http
