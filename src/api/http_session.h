// SPDX-License-Identifier: Apache-2.0
// One connection of the socket API's listeners (http_server_core.h), whatever its transport.
// Its code is split by job, because Beast's reading and writing over a timed stream are the
// costliest code of the build to compile and each half alone stays quick: the life cycle in
// http_server_core.cpp, reading a request and dispatching it in http_session_read.cpp,
// writing the answer and closing in http_session_write.cpp.
#pragma once

#include <array>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/basic_stream.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "http_server_core.h"

namespace snowcar::api::internal {

// One connection. Every member function runs on the connection's strand (the socket's
// executor), so no member needs a lock.
class HttpSession : public std::enable_shared_from_this<HttpSession> {
 public:
  using Stream = boost::beast::basic_stream<boost::asio::generic::stream_protocol>;

  HttpSession(GenericSocket socket, std::shared_ptr<HttpServerBase> server, uint64_t id,
              SlotKind kind, Admission admission);
  ~HttpSession();
  HttpSession(const HttpSession&) = delete;
  HttpSession& operator=(const HttpSession&) = delete;

  void Start();
  // A spare connection still waiting for its request makes room for a newer one: it gets
  // the 503 now instead of at its deadline.
  void PushOut();
  void Close();

 private:
  // http_session_read.cpp
  void Read();
  void OnHeader(boost::beast::error_code ec);
  void OnBody(boost::beast::error_code ec);
  void AnswerReadFailure(const boost::beast::error_code& ec);
  void Dispatch(bool keep_alive_allowed);
  // http_session_write.cpp
  void Write(const ApiResponse& r, unsigned version, bool keep_alive);
  void Linger();
  void Drain();
  void CloseNow();

  Stream stream_;
  boost::beast::flat_buffer buffer_;
  std::optional<boost::beast::http::request_parser<boost::beast::http::string_body>> parser_;
  std::shared_ptr<HttpServerBase> server_;
  const uint64_t id_;
  const SlotKind kind_;
  std::string peer_;
  std::optional<ApiResponse> refusal_;
  boost::asio::steady_timer spare_deadline_;  // spare: the time it has to send its request
  bool answered_ = false;    // spare: its one request was read (or it was answered anyway)
  bool pushed_out_ = false;  // spare: too slow, or made room for a newer connection
  bool closing_ = false;     // Close() was called (server stopping)
  std::array<char, 512> drain_{};
};

}  // namespace snowcar::api::internal
