// SPDX-License-Identifier: Apache-2.0
// The request and answer of Client (include/snowcar/api/client.h) once it is connected. Both
// transports' sockets become one generic stream type for it, so Beast's request writing and
// answer reading are compiled once rather than once per transport, and in a file of their
// own: over a timed stream they are among the costliest code of the build to compile.
#pragma once

#include <boost/asio/generic/stream_protocol.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/beast/core/basic_stream.hpp>
#include <string>
#include <string_view>

#include "snowcar/api/client.h"
#include "snowcar/common/status.h"

namespace snowcar::api::internal {

using GenericStream = boost::beast::basic_stream<boost::asio::generic::stream_protocol>;

// Writes one request on a connected stream and reads the whole answer, running `io` until
// both are done. `peer` names the other end in messages ("the snowcar socket
// '/run/x.sock'", "http://127.0.0.1:8080").
Result<HttpResult> Exchange(boost::asio::io_context& io, GenericStream stream,
                            const ClientOptions& options, const std::string& peer,
                            std::string_view method, std::string_view target,
                            std::string_view body);

}  // namespace snowcar::api::internal
