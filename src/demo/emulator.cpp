#include "demo/emulator.h"

#include <curl/curl.h>

#include <boost/json.hpp>

namespace snowcar::demo {
namespace {

size_t Append(char* data, size_t size, size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

}  // namespace

Status StartWriter(const std::string& base_url, const std::vector<std::string>& tables,
                   int rows_per_second) {
  boost::json::array names;
  for (const auto& t : tables) names.emplace_back(t);
  const std::string body = boost::json::serialize(boost::json::object{
      {"tables", names}, {"rows_per_second", rows_per_second}, {"update_share", 0.5}});
  const std::string url = base_url + "/_emulator/writer/start";

  CURL* curl = curl_easy_init();
  if (curl == nullptr) return Status::Internal("libcurl: cannot create a handle");
  std::string answer;
  curl_slist* headers = curl_slist_append(nullptr, "Content-Type: application/json");
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.c_str());
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, Append);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &answer);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, 5000L);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  const CURLcode rc = curl_easy_perform(curl);
  long status = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  curl_slist_free_all(headers);
  curl_easy_cleanup(curl);
  if (rc != CURLE_OK) {
    return Status::Unavailable("POST " + url + ": " + curl_easy_strerror(rc));
  }
  if (status != 200) {
    return Status::Internal("POST " + url + " answered " + std::to_string(status) + ": " + answer);
  }
  return Status::Ok();
}

}  // namespace snowcar::demo
