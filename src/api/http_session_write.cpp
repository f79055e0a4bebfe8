// SPDX-License-Identifier: Apache-2.0
// A session writes its answer, then keeps the connection, lingers or closes it (http_session.h
// says why this is a file of its own).
#include <boost/beast/http/write.hpp>

#include "http_session.h"
#include "snowcar/common/text.h"

namespace snowcar::api::internal {

void HttpSession::Write(const ApiResponse& r, unsigned version, bool keep_alive) {
  namespace http = boost::beast::http;
  auto res = std::make_shared<http::response<http::string_body>>();
  res->version(version == 10 ? 10 : 11);
  res->result(static_cast<unsigned>(r.status));
  res->reason(HttpReasonPhrase(r.status));
  res->set(http::field::server, "snowcar");
  res->set(http::field::content_type, r.content_type);
  for (const auto& [k, v] : r.headers) res->set(k, v);
  res->body() = r.body;
  res->keep_alive(keep_alive && !server_->stopped());
  res->prepare_payload();
  stream_.expires_after(server_->limits().read_timeout);
  http::async_write(stream_, *res,
                    [self = shared_from_this(), res](boost::beast::error_code ec, size_t) {
                      if (ec) return self->CloseNow();
                      if (!res->keep_alive()) return self->Linger();
                      self->Read();
                    });
}

// After the last answer: stop sending, then read and discard until the client closes or
// kLingerTimeout passes, and only then close (see kLingerTimeout for why).
void HttpSession::Linger() {
  if (closing_ || server_->stopped()) return CloseNow();
  boost::beast::error_code ignored;
  stream_.socket().shutdown(GenericSocket::shutdown_send, ignored);
  stream_.expires_after(kLingerTimeout);
  Drain();
}

void HttpSession::Drain() {
  stream_.async_read_some(boost::asio::buffer(drain_),
                          [self = shared_from_this()](boost::beast::error_code ec, size_t) {
                            if (ec || self->closing_) return self->CloseNow();
                            self->Drain();
                          });
}

void HttpSession::CloseNow() {
  spare_deadline_.cancel();
  boost::beast::error_code ignored;
  stream_.socket().shutdown(GenericSocket::shutdown_both, ignored);
  stream_.socket().close(ignored);
}

}  // namespace snowcar::api::internal
