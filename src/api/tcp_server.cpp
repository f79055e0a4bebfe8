// SPDX-License-Identifier: Apache-2.0
#include "snowcar/api/tcp_server.h"

#include <boost/asio/ip/tcp.hpp>
#include <charconv>

#include "http_server_core.h"
#include "snowcar/common/log.h"

namespace snowcar::api {

namespace net = boost::asio;
using tcp = net::ip::tcp;
using TcpCore = internal::HttpServerCore<tcp>;

bool ListenAddress::IsLoopback() const {
  if (host == "localhost") return true;
  boost::system::error_code ec;
  const net::ip::address a = net::ip::make_address(host, ec);
  if (ec) return false;  // some other host name: it may resolve to anything
  if (a.is_v6() && a.to_v6().is_v4_mapped()) {
    return net::ip::make_address_v4(net::ip::v4_mapped, a.to_v6()).is_loopback();
  }
  return a.is_loopback();
}

std::string ListenAddress::ToString() const {
  const bool v6 = host.find(':') != std::string::npos;
  return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

Result<ListenAddress> ParseListenAddress(std::string_view text) {
  const auto bad = [&](std::string_view why) {
    return Status::InvalidArgument("listen address '" + std::string(text) +
                                   "': " + std::string(why));
  };
  const size_t colon = text.rfind(':');
  if (colon == std::string_view::npos) return bad("must be host:port, e.g. 127.0.0.1:9464");
  std::string_view host = text.substr(0, colon);
  const std::string_view port = text.substr(colon + 1);
  if (!host.empty() && host.front() == '[') {
    if (host.size() < 2 || host.back() != ']') return bad("an IPv6 host needs a closing ']'");
    host = host.substr(1, host.size() - 2);
  } else if (host.find(':') != std::string_view::npos) {
    return bad("an IPv6 host must be written in brackets, e.g. [::1]:9464");
  }
  if (host.empty()) return bad("names no host");
  unsigned value = 0;
  const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (port.empty() || ec != std::errc() || end != port.data() + port.size() || value > 65535) {
    return bad("port must be a number from 0 to 65535");
  }
  return ListenAddress{std::string(host), static_cast<uint16_t>(value)};
}

struct TcpServer::State {
  TcpServerOptions options;
  std::shared_ptr<TcpCore> core;
  bool has_router = false;
  std::atomic<uint16_t> port{0};
  std::atomic<bool> stopped{false};
};

TcpServer::TcpServer(net::io_context& io, TcpServerOptions options,
                     std::shared_ptr<const ApiRouter> router)
    : state_(std::make_shared<State>()) {
  state_->options = std::move(options);
  state_->has_router = router != nullptr;
  const TcpServerOptions& o = state_->options;
  const ConnectionLimits& limits = o.limits;
  // Peers are identified for the debug log only; who may connect is decided by the bind
  // address (loopback by default) and, beyond that, by the network around the pod.
  state_->core = std::make_shared<TcpCore>(
      io, limits, std::move(router),
      [](tcp::socket& socket) {
        internal::Admission admission;
        boost::system::error_code ec;
        const tcp::endpoint remote = socket.remote_endpoint(ec);
        admission.peer =
            ec ? "tcp unknown"
               : "tcp " + remote.address().to_string() + ":" + std::to_string(remote.port());
        return admission;
      },
      "tcp");
}

TcpServer::~TcpServer() { Stop(); }

uint16_t TcpServer::port() const { return state_->port.load(); }

std::string TcpServer::bound_address() const {
  ListenAddress a = state_->options.address;
  a.port = port();
  return a.ToString();
}

size_t TcpServer::open_connections() const { return state_->core->open_connections(); }

Status TcpServer::Start() {
  const std::string where = state_->options.address.ToString();
  if (!state_->has_router) return Status::InvalidArgument("TcpServer needs a router");
  boost::system::error_code ec;
  const auto fail = [&](std::string_view what) {
    boost::system::error_code ignored;
    state_->core->acceptor().close(ignored);
    return Status::FailedPrecondition("admin.listen '" + where + "': " + std::string(what) +
                                      " failed: " + ec.message());
  };
  // Numeric addresses need no lookup; "localhost" and other names go through the resolver
  // (blocking, but this runs once on the start-up thread).
  tcp::endpoint endpoint;
  const net::ip::address numeric = net::ip::make_address(state_->options.address.host, ec);
  if (!ec) {
    endpoint = tcp::endpoint(numeric, state_->options.address.port);
  } else {
    tcp::resolver resolver(state_->core->acceptor().get_executor());
    auto results = resolver.resolve(state_->options.address.host,
                                    std::to_string(state_->options.address.port), ec);
    if (ec || results.empty()) return fail("resolving the host");
    endpoint = results.begin()->endpoint();
  }
  tcp::acceptor& acceptor = state_->core->acceptor();
  acceptor.open(endpoint.protocol(), ec);
  if (ec) return fail("socket()");
  acceptor.set_option(net::socket_base::reuse_address(true), ec);
  if (ec) return fail("SO_REUSEADDR");
  acceptor.bind(endpoint, ec);
  if (ec) return fail("bind()");
  acceptor.listen(net::socket_base::max_listen_connections, ec);
  if (ec) return fail("listen()");
  state_->port = acceptor.local_endpoint(ec).port();
  if (ec) return fail("getsockname()");
  SNOWCAR_LOG(kInfo, "api.admin_listening",
              {{"address", bound_address()}, {"loopback", state_->options.address.IsLoopback()}});
  state_->core->StartAccepting();
  return Status::Ok();
}

void TcpServer::Stop() {
  if (state_->stopped.exchange(true)) return;
  state_->core->Stop();
  if (state_->port != 0) SNOWCAR_LOG(kInfo, "api.admin_stopped", {{"address", bound_address()}});
}

}  // namespace snowcar::api
