// SPDX-License-Identifier: Apache-2.0
#include "support/http_post.h"

#include <curl/curl.h>

namespace snowcar::testsupport {

HttpAnswer PostEmpty(const std::string& url) {
  HttpAnswer answer;
  CURL* e = curl_easy_init();
  if (e == nullptr) return answer;
  curl_easy_setopt(e, CURLOPT_URL, url.c_str());
  curl_easy_setopt(e, CURLOPT_POSTFIELDS, "");
  curl_easy_setopt(
      e, CURLOPT_WRITEFUNCTION, +[](char* d, size_t s, size_t n, void* out) {
        static_cast<std::string*>(out)->append(d, s * n);
        return s * n;
      });
  curl_easy_setopt(e, CURLOPT_WRITEDATA, &answer.body);
  if (curl_easy_perform(e) == CURLE_OK) {
    curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &answer.status);
  }
  curl_easy_cleanup(e);
  return answer;
}

}  // namespace snowcar::testsupport
