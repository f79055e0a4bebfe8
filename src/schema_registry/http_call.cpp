// SPDX-License-Identifier: Apache-2.0
#include "http_call.h"

#include <curl/curl.h>

#include <memory>

#include "snowcar/common/version.h"

namespace snowcar::schema_registry {
namespace {

size_t OnBody(char* data, size_t size, size_t count, void* user) {
  auto* answer = static_cast<std::pair<std::string*, int64_t>*>(user);
  const size_t n = size * count;
  if (static_cast<int64_t>(answer->first->size() + n) > answer->second) return 0;  // too large
  answer->first->append(data, n);
  return n;
}

bool EndsWithP12(std::string_view path) {
  return path.ends_with(".p12") || path.ends_with(".pfx") || path.ends_with(".P12") ||
         path.ends_with(".PFX");
}

}  // namespace

std::string DisplayUrl(std::string_view url) {
  const size_t scheme = url.find("://");
  if (scheme == std::string_view::npos) return std::string(url);
  const size_t host_start = scheme + 3;
  const size_t path = url.find('/', host_start);
  const size_t at = url.substr(0, path).rfind('@');
  if (at == std::string_view::npos || at < host_start) return std::string(url);
  return std::string(url.substr(0, host_start)) + std::string(url.substr(at + 1));
}

std::string EscapePathSegment(std::string_view segment) {
  std::string out;
  constexpr char kHex[] = "0123456789ABCDEF";
  for (char ch : segment) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(ch);
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xF]);
    }
  }
  return out;
}

HttpAnswer PerformHttp(const RegistryOptions& o, std::string_view method, std::string_view path,
                       std::string_view body) {
  HttpAnswer answer;
  std::unique_ptr<CURL, void (*)(CURL*)> easy(curl_easy_init(), &curl_easy_cleanup);
  if (!easy) {
    answer.transport_error = "curl_easy_init failed";
    return answer;
  }
  CURL* e = easy.get();
  const std::string url = o.url + std::string(path);
  std::pair<std::string*, int64_t> sink{&answer.body, o.max_response_bytes};
  char error[CURL_ERROR_SIZE] = {};

  curl_easy_setopt(e, CURLOPT_URL, url.c_str());
  curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(o.connect_timeout_ms));
  curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, static_cast<long>(o.request_timeout_ms));
  curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, &OnBody);
  curl_easy_setopt(e, CURLOPT_WRITEDATA, &sink);
  curl_easy_setopt(e, CURLOPT_ERRORBUFFER, error);
  curl_easy_setopt(e, CURLOPT_USERAGENT, DefaultUserAgent().c_str());  // libcurl copies it
  curl_easy_setopt(e, CURLOPT_PROXY, "");  // ignore http_proxy variables, as the Table API client
  curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, std::string(method).c_str());

  curl_slist* headers = nullptr;
  headers = curl_slist_append(headers,
                              "Accept: application/vnd.schemaregistry.v1+json, "
                              "application/vnd.schemaregistry+json, application/json");
  if (!body.empty()) {
    headers = curl_slist_append(headers, "Content-Type: application/vnd.schemaregistry.v1+json");
    curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
    curl_easy_setopt(e, CURLOPT_POSTFIELDS, body.data());
  }
  headers = curl_slist_append(headers, "Expect:");
  std::unique_ptr<curl_slist, void (*)(curl_slist*)> header_list(headers, &curl_slist_free_all);
  curl_easy_setopt(e, CURLOPT_HTTPHEADER, headers);

  // USER_INFO: the configured user:password. URL: libcurl takes the user info from the URL
  // itself, so nothing is set here.
  std::string user;
  std::string password;
  if (o.basic_auth_credentials_source == "USER_INFO" && !o.basic_auth_user_info.empty()) {
    const size_t colon = o.basic_auth_user_info.find(':');
    user = o.basic_auth_user_info.substr(0, colon);
    if (colon != std::string::npos) password = o.basic_auth_user_info.substr(colon + 1);
    curl_easy_setopt(e, CURLOPT_HTTPAUTH, static_cast<long>(CURLAUTH_BASIC));
    curl_easy_setopt(e, CURLOPT_USERNAME, user.c_str());
    curl_easy_setopt(e, CURLOPT_PASSWORD, password.c_str());
  } else if (o.basic_auth_credentials_source == "URL") {
    curl_easy_setopt(e, CURLOPT_HTTPAUTH, static_cast<long>(CURLAUTH_BASIC));
  }

  if (!o.tls_verify) {
    curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 0L);
  }
  if (!o.tls_ca_file.empty()) curl_easy_setopt(e, CURLOPT_CAINFO, o.tls_ca_file.c_str());
  if (!o.tls_cert_file.empty()) {
    curl_easy_setopt(e, CURLOPT_SSLCERT, o.tls_cert_file.c_str());
    if (EndsWithP12(o.tls_cert_file)) curl_easy_setopt(e, CURLOPT_SSLCERTTYPE, "P12");
  }
  if (!o.tls_key_file.empty()) curl_easy_setopt(e, CURLOPT_SSLKEY, o.tls_key_file.c_str());
  if (!o.tls_key_password.empty()) {
    curl_easy_setopt(e, CURLOPT_KEYPASSWD, o.tls_key_password.c_str());
  }

  const CURLcode code = curl_easy_perform(e);
  if (code != CURLE_OK) {
    answer.status = 0;
    answer.timed_out = code == CURLE_OPERATION_TIMEDOUT;
    answer.transport_error = error[0] != '\0' ? std::string(error) : curl_easy_strerror(code);
    if (code == CURLE_WRITE_ERROR) {
      answer.transport_error =
          "the answer exceeded " + std::to_string(o.max_response_bytes) + " bytes";
    }
    return answer;
  }
  long status = 0;  // NOLINT(google-runtime-int): libcurl's type
  curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status);
  answer.status = static_cast<int>(status);
  return answer;
}

}  // namespace snowcar::schema_registry
