// SPDX-License-Identifier: Apache-2.0
#include "demo/emulator.h"

#include <boost/json.hpp>
#include <boost/url/parse.hpp>

#include "snowcar/api/client.h"

namespace snowcar::demo {

Status StartWriter(const std::string& base_url, const std::vector<std::string>& tables,
                   int rows_per_second) {
  // The emulator prints http://HOST:PORT; its control endpoint is plain HTTP on it.
  const auto url = boost::urls::parse_absolute_uri(base_url);
  if (!url || url->scheme() != "http" || url->host().empty() || !url->has_port()) {
    return Status::InvalidArgument("the emulator printed '" + base_url +
                                   "', not an address of the form http://HOST:PORT");
  }
  boost::json::array names;
  for (const auto& t : tables) names.emplace_back(t);
  const std::string body = boost::json::serialize(boost::json::object{
      {"tables", names}, {"rows_per_second", rows_per_second}, {"update_share", 0.5}});
  const std::string target = "/_emulator/writer/start";
  const api::Client client({.connect_timeout = std::chrono::milliseconds(5000),
                            .request_timeout = std::chrono::milliseconds(5000)});
  auto answer = client.SendTcp(url->host_address(), url->port_number(), "POST", target, body);
  if (!answer.ok())
    return Status(answer.status().code(),
                  "POST " + base_url + target + ": " + answer.status().message());
  if (answer->status != 200) {
    return Status::Internal("POST " + base_url + target + " answered " +
                            std::to_string(answer->status) + ": " + answer->body);
  }
  return Status::Ok();
}

}  // namespace snowcar::demo
