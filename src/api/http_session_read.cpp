// SPDX-License-Identifier: Apache-2.0
// A session reads a request (header first, so a spare connection can be answered early) and
// hands it to the router (http_session.h says why this is a file of its own).
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/read.hpp>

#include "http_session.h"
#include "snowcar/common/log.h"

namespace snowcar::api::internal {

namespace {

// True for the ways a read ends when there is nobody (left) to answer.
bool ClientGone(const boost::beast::error_code& ec) {
  namespace http = boost::beast::http;
  namespace net = boost::asio;
  return ec == http::error::end_of_stream || ec == net::error::eof ||
         ec == net::error::connection_reset || ec == net::error::broken_pipe ||
         ec == http::error::partial_message;
}

}  // namespace

void HttpSession::Read() {
  namespace http = boost::beast::http;
  if (server_->stopped() || closing_) return CloseNow();
  const ConnectionLimits& limits = server_->limits();
  parser_.emplace();
  parser_->header_limit(static_cast<uint32_t>(limits.header_limit));
  parser_->body_limit(limits.body_limit);
  if (kind_ == SlotKind::kSpare) {
    // Not the stream's own deadline: that one closes the socket when it fires, and a spare
    // connection that ran out of time still gets its 503. This timer only ends the read.
    stream_.expires_never();
    spare_deadline_.expires_after(limits.spare_header_timeout);
    spare_deadline_.async_wait([self = shared_from_this()](boost::beast::error_code ec) {
      if (ec || self->answered_) return;
      self->pushed_out_ = true;
      self->stream_.cancel();
    });
  } else {
    stream_.expires_after(limits.header_timeout);
  }
  http::async_read_header(
      stream_, buffer_, *parser_,
      [self = shared_from_this()](boost::beast::error_code ec, size_t) { self->OnHeader(ec); });
}

void HttpSession::OnHeader(boost::beast::error_code ec) {
  namespace http = boost::beast::http;
  if (kind_ == SlotKind::kSpare) {
    answered_ = true;
    spare_deadline_.cancel();
    server_->SpareAnswered(id_);
    if (closing_ || server_->stopped()) return CloseNow();
    if (pushed_out_) {
      // Too slow, or pushed out by a newer connection: it still learns why, instead of
      // seeing the connection vanish.
      return Write(server_->TooManyConnections(), 11, /*keep_alive=*/false);
    }
  }
  if (ec == boost::beast::error::timeout || ec == boost::asio::error::operation_aborted ||
      ClientGone(ec)) {
    // The client left, went silent, or we are stopping: nobody to answer.
    return CloseNow();
  }
  if (ec) return AnswerReadFailure(ec);
  const auto& header = parser_->get();
  if (refusal_) return Write(*refusal_, header.version(), /*keep_alive=*/false);
  if (kind_ == SlotKind::kSpare) {
    if (header.method() != http::verb::get || !server_->IsProbePath(header.target())) {
      return Write(server_->TooManyConnections(), header.version(), /*keep_alive=*/false);
    }
    // A probe: no body to wait for (a GET), answered at once.
    return Dispatch(/*keep_alive_allowed=*/false);
  }
  if (parser_->is_done()) return Dispatch(/*keep_alive_allowed=*/true);
  stream_.expires_after(server_->limits().read_timeout);
  http::async_read(
      stream_, buffer_, *parser_,
      [self = shared_from_this()](boost::beast::error_code ec2, size_t) { self->OnBody(ec2); });
}

void HttpSession::OnBody(boost::beast::error_code ec) {
  if (ec == boost::beast::error::timeout || ec == boost::asio::error::operation_aborted ||
      ClientGone(ec)) {
    return CloseNow();
  }
  if (ec) return AnswerReadFailure(ec);
  Dispatch(/*keep_alive_allowed=*/true);
}

void HttpSession::AnswerReadFailure(const boost::beast::error_code& ec) {
  const ApiResponse r = ErrorForReadFailure(ec, server_->limits());
  SNOWCAR_LOG(kDebug, "api.bad_request",
              {{"listener", server_->log_prefix()}, {"status", r.status}, {"error", ec.message()}});
  Write(r, 11, /*keep_alive=*/false);
}

void HttpSession::Dispatch(bool keep_alive_allowed) {
  const auto& message = parser_->get();
  ApiRequest request;
  request.method = std::string(message.method_string());
  request.target = std::string(message.target());
  request.body = message.body();
  request.peer = peer_;
  const ApiResponse response = server_->router().Handle(request);
  SNOWCAR_LOG(kDebug, "api.request",
              {{"listener", server_->log_prefix()},
               {"method", request.method},
               {"target", request.target},
               {"status", response.status}});
  Write(response, message.version(), keep_alive_allowed && message.keep_alive());
}

}  // namespace snowcar::api::internal
