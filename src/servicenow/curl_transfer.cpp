// SPDX-License-Identifier: Apache-2.0
#include "curl_transfer.h"

#include <algorithm>

#include "snowcar/common/version.h"

namespace snowcar::servicenow {
namespace {

size_t OnBody(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const size_t n = size * count;
  if (static_cast<int64_t>(t->response.body.size() + n) > t->max_bytes) {
    t->too_large = true;
    return 0;  // aborts the transfer with CURLE_WRITE_ERROR
  }
  if (t->response.body.empty()) {
    // A body whose length is announced gets one buffer of that size: grown by doubling, a
    // 5 MiB page would hold up to 8 MiB, and 12 MiB while it moves to the larger buffer.
    curl_off_t length = -1;
    if (curl_easy_getinfo(t->easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length) == CURLE_OK &&
        length > 0 && length <= t->max_bytes) {
      t->response.body.reserve(static_cast<size_t>(length));
    }
  }
  t->response.body.append(data, n);
  return n;
}

size_t OnHeader(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const size_t n = size * count;
  std::string_view line(data, n);
  if (line.starts_with("HTTP/")) {
    t->response.headers.clear();  // a new status line (e.g. after 100 Continue) starts over
    return n;
  }
  auto colon = line.find(':');
  if (colon == std::string_view::npos) return n;
  std::string_view value = line.substr(colon + 1);
  while (!value.empty() && (value.back() == '\r' || value.back() == '\n')) value.remove_suffix(1);
  while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  t->response.headers.emplace_back(std::string(line.substr(0, colon)), std::string(value));
  return n;
}

bool EndsWithIgnoreCase(std::string_view s, std::string_view suffix) {
  if (s.size() < suffix.size()) return false;
  return std::equal(suffix.rbegin(), suffix.rend(), s.rbegin(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) ==
           std::tolower(static_cast<unsigned char>(b));
  });
}

}  // namespace

Transfer::~Transfer() {
  if (easy != nullptr) curl_easy_cleanup(easy);
  if (header_list != nullptr) curl_slist_free_all(header_list);
}

bool Transfer::RequestSent() const {
  long request_size = 0;  // NOLINT(google-runtime-int): libcurl's type
  curl_easy_getinfo(easy, CURLINFO_REQUEST_SIZE, &request_size);
  return request_size > 0;
}

int Transfer::ResponseStatus() const {
  long code = 0;  // NOLINT(google-runtime-int)
  curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &code);
  return static_cast<int>(code);
}

Result<std::unique_ptr<Transfer>> NewTransfer(const TransferSpec& spec, const ClientOptions& o) {
  auto t = std::make_unique<Transfer>();
  t->easy = curl_easy_init();
  if (t->easy == nullptr) return Status::Internal("curl_easy_init failed");
  t->max_bytes = o.max_response_bytes;
  CURL* e = t->easy;
  auto add_header = [&](const std::string& h) {
    t->header_list = curl_slist_append(t->header_list, h.c_str());
  };

  curl_easy_setopt(e, CURLOPT_URL, spec.url.c_str());
  curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "");  // every encoding libcurl can decode
  curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(o.connect_timeout_ms));
  curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, static_cast<long>(o.request_timeout_ms));
  // libcurl copies the string.
  curl_easy_setopt(e, CURLOPT_USERAGENT,
                   (o.user_agent.empty() ? DefaultUserAgent() : o.user_agent).c_str());
  curl_easy_setopt(e, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(o.max_response_bytes));
  curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, &OnBody);
  curl_easy_setopt(e, CURLOPT_WRITEDATA, t.get());
  curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, &OnHeader);
  curl_easy_setopt(e, CURLOPT_HEADERDATA, t.get());
  curl_easy_setopt(e, CURLOPT_ERRORBUFFER, t->error);
  curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);

  // libcurl re-sends a request once, silently, when it went out on a reused keep-alive
  // connection and the answer never started (it takes that for a connection the server had
  // already closed). For POST and DELETE that hides an ambiguous outcome and may apply a
  // create twice, so they always get a connection of their own: the lost answer then reaches
  // classify.h as AMBIGUOUS and the caller's policy decides.
  if (spec.method == Method::kPost || spec.method == Method::kDelete) {
    curl_easy_setopt(e, CURLOPT_FRESH_CONNECT, 1L);
  }

  switch (spec.method) {
    case Method::kGet:
      curl_easy_setopt(e, CURLOPT_HTTPGET, 1L);
      break;
    case Method::kDelete:
      curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, "DELETE");
      break;
    case Method::kPost:
    case Method::kPatch:
    case Method::kPut:
      curl_easy_setopt(e, CURLOPT_POST, 1L);
      if (spec.method != Method::kPost) {
        curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, spec.method == Method::kPatch ? "PATCH" : "PUT");
      }
      curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(spec.body.size()));
      curl_easy_setopt(e, CURLOPT_COPYPOSTFIELDS, spec.body.c_str());
      break;
  }

  add_header("Accept: application/json");
  add_header("Expect:");  // no 100-continue round trip
  if (spec.method != Method::kGet && spec.method != Method::kDelete) {
    add_header("Content-Type: " +
               (spec.content_type.empty() ? std::string("application/json") : spec.content_type));
  }
  for (const auto& h : spec.headers) add_header(h);
  if (!spec.bearer.empty()) add_header("Authorization: Bearer " + spec.bearer);
  curl_easy_setopt(e, CURLOPT_HTTPHEADER, t->header_list);

  if (spec.basic_auth) {
    curl_easy_setopt(e, CURLOPT_HTTPAUTH, static_cast<long>(CURLAUTH_BASIC));
    curl_easy_setopt(e, CURLOPT_USERNAME, spec.username.c_str());
    curl_easy_setopt(e, CURLOPT_PASSWORD, spec.password.c_str());
  }

  if (!o.tls_verify) {
    curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 0L);
  }
  if (!o.tls_ca_file.empty()) curl_easy_setopt(e, CURLOPT_CAINFO, o.tls_ca_file.c_str());
  if (!o.tls_cert_file.empty()) {
    curl_easy_setopt(e, CURLOPT_SSLCERT, o.tls_cert_file.c_str());
    if (EndsWithIgnoreCase(o.tls_cert_file, ".p12") ||
        EndsWithIgnoreCase(o.tls_cert_file, ".pfx")) {
      curl_easy_setopt(e, CURLOPT_SSLCERTTYPE, "P12");
    }
  }
  if (!o.tls_key_file.empty()) curl_easy_setopt(e, CURLOPT_SSLKEY, o.tls_key_file.c_str());
  if (!o.tls_key_password.empty()) {
    curl_easy_setopt(e, CURLOPT_KEYPASSWD, o.tls_key_password.c_str());
  }
  if (!o.proxy_url.empty()) {
    curl_easy_setopt(e, CURLOPT_PROXY, o.proxy_url.c_str());
    if (!o.proxy_username.empty()) {
      curl_easy_setopt(e, CURLOPT_PROXYUSERNAME, o.proxy_username.c_str());
      curl_easy_setopt(e, CURLOPT_PROXYPASSWORD, o.proxy_password.c_str());
    }
  } else {
    curl_easy_setopt(e, CURLOPT_PROXY, "");  // ignore http_proxy variables: config decides
  }
  return t;
}

}  // namespace snowcar::servicenow
