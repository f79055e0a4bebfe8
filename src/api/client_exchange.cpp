// SPDX-License-Identifier: Apache-2.0
#include "client_exchange.h"

#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <cstdint>

namespace snowcar::api::internal {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;

Result<HttpResult> Exchange(net::io_context& io, GenericStream stream, const ClientOptions& options,
                            const std::string& peer, std::string_view method,
                            std::string_view target, std::string_view body) {
  http::request<http::string_body> req;
  req.method_string(method);
  req.target(target);
  req.version(11);
  req.set(http::field::host, "localhost");
  req.set(http::field::user_agent, "snowcar-cli");
  if (!body.empty() || method == "POST") {
    req.set(http::field::content_type, "application/json");
    req.body() = std::string(body);
  }
  req.keep_alive(false);
  req.prepare_payload();

  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(uint64_t{64} * 1024 * 1024);
  beast::error_code ec = net::error::would_block;
  stream.expires_after(options.request_timeout);
  http::async_write(stream, req, [&](beast::error_code e, size_t) {
    if (e) {
      ec = e;
      return;
    }
    http::async_read(stream, buffer, parser, [&](beast::error_code e2, size_t) { ec = e2; });
  });
  io.restart();
  io.run();
  if (ec == beast::error::timeout) {
    return Status::DeadlineExceeded("no answer from " + peer + " within " +
                                    std::to_string(options.request_timeout.count()) + " ms");
  }
  if (ec) return Status::Unavailable("request to " + peer + " failed: " + ec.message());
  const auto& res = parser.get();
  HttpResult out;
  out.status = static_cast<int>(res.result_int());
  out.content_type = std::string(res[http::field::content_type]);
  out.body = res.body();
  for (const auto& field : res) {
    out.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
  }
  beast::error_code ignored;
  stream.socket().shutdown(GenericStream::socket_type::shutdown_both, ignored);
  return out;
}

}  // namespace snowcar::api::internal
