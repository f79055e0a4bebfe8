// SPDX-License-Identifier: Apache-2.0
#include "snowcar/api/unix_socket_server.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/post.hpp>

#include "http_server_core.h"
#include "snowcar/common/log.h"
#include "socket_file.h"

namespace snowcar::api {

namespace net = boost::asio;
namespace beast = boost::beast;
using local = net::local::stream_protocol;
using UnixCore = internal::HttpServerCore<local>;

struct UnixSocketServer::State {
  ServerOptions options;
  std::shared_ptr<UnixCore> core;
  // The socket file this server bound, to unlink only our own file on Stop().
  dev_t bound_dev = 0;
  ino_t bound_ino = 0;
  bool has_router = false;
  std::atomic<bool> stopped{false};
};

namespace {

// The connecting process as the kernel reports it (not as the client claims), checked
// against the allow-list. A peer whose credentials cannot be read is refused when a list is
// set: an unknown uid is not on it.
internal::Admission AdmitPeer(local::socket& socket, const std::vector<uint32_t>& allowed) {
  ucred cred{};
  socklen_t len = sizeof cred;
  const bool known = getsockopt(socket.native_handle(), SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0;
  internal::Admission admission;
  admission.peer = known ? "pid=" + std::to_string(cred.pid) + " uid=" + std::to_string(cred.uid) +
                               " gid=" + std::to_string(cred.gid)
                         : "unknown";
  if (allowed.empty()) return admission;
  if (known && std::find(allowed.begin(), allowed.end(), cred.uid) != allowed.end()) {
    return admission;
  }
  const std::string uid = known ? std::to_string(cred.uid) : "unknown";
  SNOWCAR_LOG(kWarn, "api.peer_refused",
              {{"uid", uid},
               {"pid", known ? std::to_string(cred.pid) : "unknown"},
               {"reason", "uid not in socket.allowed.uids"}});
  admission.refusal = ApiResponse::Error(
      403, "uid " + uid + " is not allowed on this socket (socket.allowed.uids)", "");
  return admission;
}

std::string AllowedUidsText(const std::vector<uint32_t>& allowed) {
  if (allowed.empty()) return "any";
  std::string out;
  for (uint32_t uid : allowed) out += (out.empty() ? "" : ",") + std::to_string(uid);
  return out;
}

}  // namespace

UnixSocketServer::UnixSocketServer(net::io_context& io, ServerOptions options,
                                   std::shared_ptr<const ApiRouter> router)
    : state_(std::make_shared<State>()) {
  state_->options = std::move(options);
  state_->has_router = router != nullptr;
  const std::vector<uint32_t> allowed = state_->options.allowed_uids;
  state_->core = std::make_shared<UnixCore>(
      io, state_->options.limits, std::move(router),
      [allowed](local::socket& socket) { return AdmitPeer(socket, allowed); }, "unix");
}

UnixSocketServer::~UnixSocketServer() { Stop(); }

const std::string& UnixSocketServer::path() const { return state_->options.path; }

size_t UnixSocketServer::open_connections() const { return state_->core->open_connections(); }

Status UnixSocketServer::Start() {
  const std::string& path = state_->options.path;
  if (!state_->has_router) {
    return Status::InvalidArgument("UnixSocketServer needs a router");
  }
  SNOWCAR_RETURN_IF_ERROR(internal::PrepareSocketPath(path));
  local::acceptor& acceptor = state_->core->acceptor();
  beast::error_code ec;
  auto fail = [&](std::string_view what) {
    beast::error_code ignored;
    acceptor.close(ignored);
    return Status::FailedPrecondition("socket.path '" + path + "': " + std::string(what) +
                                      " failed: " + ec.message());
  };
  acceptor.open(local(), ec);
  if (ec) return fail("socket()");
  acceptor.bind(local::endpoint(path), ec);
  if (ec) {
    if (ec == net::error::address_in_use) {
      return Status::AlreadyExists("socket.path '" + path +
                                   "' was taken by another process while starting");
    }
    return fail("bind()");
  }
  // Owner and group (the application container sharing the volume) may connect; nobody else.
  if (chmod(path.c_str(), 0660) != 0) {
    ec.assign(errno, boost::system::generic_category());
    unlink(path.c_str());
    return fail("chmod(0660)");
  }
  struct stat st {};
  if (stat(path.c_str(), &st) == 0) {
    state_->bound_dev = st.st_dev;
    state_->bound_ino = st.st_ino;
  }
  acceptor.listen(net::socket_base::max_listen_connections, ec);
  if (ec) {
    unlink(path.c_str());
    return fail("listen()");
  }
  SNOWCAR_LOG(kInfo, "api.listening",
              {{"path", path}, {"allowed_uids", AllowedUidsText(state_->options.allowed_uids)}});
  state_->core->StartAccepting();
  return Status::Ok();
}

void UnixSocketServer::Stop() {
  if (state_->stopped.exchange(true)) return;
  state_->core->Stop();
  // Unlink only the file we bound: a successor may already have replaced it.
  const std::string& path = state_->options.path;
  struct stat st {};
  if (state_->bound_ino != 0 && lstat(path.c_str(), &st) == 0 && st.st_dev == state_->bound_dev &&
      st.st_ino == state_->bound_ino) {
    unlink(path.c_str());
    SNOWCAR_LOG(kInfo, "api.stopped", {{"path", path}});
  }
}

}  // namespace snowcar::api
