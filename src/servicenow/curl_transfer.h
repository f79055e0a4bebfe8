// SPDX-License-Identifier: Apache-2.0
// One libcurl easy handle set up for one attempt, with the buffers its callbacks fill.
// Internal to the client; lives on the client's strand.
#pragma once

#include <curl/curl.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "snowcar/common/status.h"
#include "snowcar/servicenow/client_options.h"
#include "snowcar/servicenow/instance_http.h"

namespace snowcar::servicenow {

struct TransferSpec {
  Method method = Method::kGet;
  std::string url;
  std::string body;
  std::string content_type;          // sent when body is not empty
  std::vector<std::string> headers;  // "Name: value"
  bool basic_auth = false;           // send username/password below
  std::string username;              // basic_auth: the credentials in use (credential_files.h)
  std::string password;
  std::string bearer;  // Authorization: Bearer <token> when not empty
};

struct Transfer {
  Transfer() = default;
  Transfer(const Transfer&) = delete;
  Transfer& operator=(const Transfer&) = delete;
  ~Transfer();

  CURL* easy = nullptr;
  curl_slist* header_list = nullptr;
  InstanceResponse response;
  int64_t max_bytes = 0;
  bool too_large = false;
  char error[CURL_ERROR_SIZE] = {};
  // Runs on the strand when the transfer ended (CURLE_OK or why not); the transfer is freed
  // after it returns.
  std::function<void(Transfer&, CURLcode)> done;

  // Whether any request bytes left this process (decides "never sent" vs "ambiguous").
  bool RequestSent() const;
  // Answer status after the transfer (0 when no status line arrived).
  int ResponseStatus() const;
};

// Builds the easy handle: URL, method and body, auth, Accept/User-Agent/X-Request-Id,
// gzip, no redirects, timeouts, size cap, TLS and proxy settings.
Result<std::unique_ptr<Transfer>> NewTransfer(const TransferSpec& spec,
                                              const ClientOptions& options);

}  // namespace snowcar::servicenow
