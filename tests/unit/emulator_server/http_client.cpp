// SPDX-License-Identifier: Apache-2.0
#include "http_client.h"

#include <algorithm>
#include <cctype>

namespace snowcar::emulator::testing {
namespace {

size_t OnBody(char* data, size_t size, size_t count, void* user) {
  static_cast<std::string*>(user)->append(data, size * count);
  return size * count;
}

size_t OnHeader(char* data, size_t size, size_t count, void* user) {
  auto* headers = static_cast<std::map<std::string, std::string>*>(user);
  std::string line(data, size * count);
  const size_t colon = line.find(':');
  if (colon != std::string::npos) {
    std::string name = line.substr(0, colon);
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    std::string value = line.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ')) value.erase(value.begin());
    while (!value.empty() && (value.back() == '\r' || value.back() == '\n')) value.pop_back();
    (*headers)[name] = value;
  }
  return size * count;
}

}  // namespace

HttpResult Fetch(const InstanceRequest& req) {
  HttpResult result;
  CURL* curl = curl_easy_init();
  curl_easy_setopt(curl, CURLOPT_URL, req.url.c_str());
  curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, req.method.c_str());
  if (req.method == "POST" || req.method == "PATCH" || req.method == "PUT") {
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, req.body.c_str());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, static_cast<long>(req.body.size()));
  }
  curl_slist* list = nullptr;
  for (const auto& h : req.headers) list = curl_slist_append(list, h.c_str());
  if (list != nullptr) curl_easy_setopt(curl, CURLOPT_HTTPHEADER, list);
  if (!req.userpwd.empty()) curl_easy_setopt(curl, CURLOPT_USERPWD, req.userpwd.c_str());
  if (!req.accept_encoding.empty()) {
    curl_easy_setopt(curl, CURLOPT_ACCEPT_ENCODING, req.accept_encoding.c_str());
  }
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, OnBody);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &result.body);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, OnHeader);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &result.headers);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, req.timeout_ms);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  result.code = curl_easy_perform(curl);
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &result.status);
  curl_slist_free_all(list);
  curl_easy_cleanup(curl);
  return result;
}

HttpResult Get(const std::string& url, const std::string& userpwd) {
  InstanceRequest req;
  req.url = url;
  req.userpwd = userpwd;
  return Fetch(req);
}

HttpResult Send(const std::string& method, const std::string& url, const std::string& json_body,
                const std::string& userpwd) {
  InstanceRequest req;
  req.method = method;
  req.url = url;
  req.body = json_body;
  req.userpwd = userpwd;
  req.headers = {"Content-Type: application/json", "Accept: application/json"};
  return Fetch(req);
}

}  // namespace snowcar::emulator::testing
