#include "snowcar/api/unix_socket_server.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core/basic_stream.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "snowcar/common/log.h"
#include "socket_file.h"

namespace snowcar::api {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using local = net::local::stream_protocol;
using Stream = beast::basic_stream<local>;

class Session;

struct UnixSocketServer::State {
  State(net::io_context& io_in, ServerOptions o, std::shared_ptr<const Router> r)
      : io(io_in),
        options(std::move(o)),
        router(std::move(r)),
        acceptor(net::make_strand(io)),
        accept_backoff(acceptor.get_executor()) {}

  net::io_context& io;
  const ServerOptions options;
  const std::shared_ptr<const Router> router;
  local::acceptor acceptor;          // used on its own strand only
  net::steady_timer accept_backoff;  // same strand as the acceptor
  std::atomic<bool> stopped{false};
  // The socket file this server bound, to unlink only our own file on Stop().
  dev_t bound_dev = 0;
  ino_t bound_ino = 0;

  std::mutex mu;
  uint64_t next_id = 0;                                           // guarded by mu
  std::unordered_map<uint64_t, std::weak_ptr<Session>> sessions;  // guarded by mu

  void Accept(const std::shared_ptr<State>& self);
};

namespace {

Response ErrorFor(const beast::error_code& ec, const ServerOptions& options) {
  if (ec == http::error::body_limit) {
    return Response::Error(
        413, "request body exceeds " + std::to_string(options.body_limit) + " bytes", "");
  }
  if (ec == http::error::header_limit) {
    return Response::Error(
        431, "request line and headers exceed " + std::to_string(options.header_limit) + " bytes",
        "");
  }
  return Response::Error(400, "malformed HTTP request: " + ec.message(), "");
}

// The connecting process as the kernel reports it (not as the client claims).
std::string PeerCredentials(int fd) {
  ucred cred{};
  socklen_t len = sizeof cred;
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) return "unknown";
  return "pid=" + std::to_string(cred.pid) + " uid=" + std::to_string(cred.uid) +
         " gid=" + std::to_string(cred.gid);
}

}  // namespace

// One connection. Every member function runs on the connection's strand (the socket's
// executor), so no member needs a lock.
class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(local::socket socket, std::shared_ptr<UnixSocketServer::State> server, uint64_t id)
      : stream_(std::move(socket)), server_(std::move(server)), id_(id) {}

  ~Session() {
    std::lock_guard lock(server_->mu);
    server_->sessions.erase(id_);
  }

  void Start() {
    net::post(stream_.get_executor(), [self = shared_from_this()] {
      self->peer_ = PeerCredentials(self->stream_.socket().native_handle());
      self->Read();
    });
  }

  // Answers once with `response`, then closes (the connection cap).
  void Reject(Response response) {
    net::post(stream_.get_executor(), [self = shared_from_this(), r = std::move(response)] {
      self->Write(r, 11, /*keep_alive=*/false);
    });
  }

  void Close() {
    net::post(stream_.get_executor(), [self = shared_from_this()] {
      beast::error_code ignored;
      self->stream_.socket().shutdown(local::socket::shutdown_both, ignored);
      self->stream_.socket().close(ignored);
    });
  }

 private:
  void Read() {
    if (server_->stopped) return;
    parser_.emplace();
    parser_->header_limit(static_cast<uint32_t>(server_->options.header_limit));
    parser_->body_limit(server_->options.body_limit);
    stream_.expires_after(server_->options.read_timeout);
    http::async_read(
        stream_, buffer_, *parser_,
        [self = shared_from_this()](beast::error_code ec, size_t) { self->OnRead(ec); });
  }

  void OnRead(beast::error_code ec) {
    if (ec == http::error::end_of_stream || ec == beast::error::timeout ||
        ec == net::error::operation_aborted || ec == net::error::eof ||
        ec == net::error::connection_reset || ec == net::error::broken_pipe ||
        ec == http::error::partial_message) {
      // The client left, went silent, or we are stopping: nobody to answer.
      return Shutdown();
    }
    if (ec) {
      const Response r = ErrorFor(ec, server_->options);
      SNOWCAR_LOG(kDebug, "api.bad_request", {{"status", r.status}, {"error", ec.message()}});
      return Write(r, 11, /*keep_alive=*/false);
    }
    const auto& message = parser_->get();
    Request request;
    request.method = std::string(message.method_string());
    request.target = std::string(message.target());
    request.body = message.body();
    request.peer = peer_;
    const Response response = server_->router->Handle(request);
    SNOWCAR_LOG(
        kDebug, "api.request",
        {{"method", request.method}, {"target", request.target}, {"status", response.status}});
    Write(response, message.version(), message.keep_alive());
  }

  void Write(const Response& r, unsigned version, bool keep_alive) {
    auto res = std::make_shared<http::response<http::string_body>>();
    res->version(version == 10 ? 10 : 11);
    res->result(static_cast<unsigned>(r.status));
    res->reason(ReasonPhrase(r.status));
    res->set(http::field::server, "snowcar");
    res->set(http::field::content_type, r.content_type);
    for (const auto& [k, v] : r.headers) res->set(k, v);
    res->body() = r.body;
    res->keep_alive(keep_alive && !server_->stopped);
    res->prepare_payload();
    stream_.expires_after(server_->options.read_timeout);
    http::async_write(stream_, *res,
                      [self = shared_from_this(), res](beast::error_code ec, size_t) {
                        if (ec || !res->keep_alive()) return self->Shutdown();
                        self->Read();
                      });
  }

  void Shutdown() {
    beast::error_code ignored;
    stream_.socket().shutdown(local::socket::shutdown_send, ignored);
    stream_.socket().close(ignored);
  }

  Stream stream_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  std::shared_ptr<UnixSocketServer::State> server_;
  const uint64_t id_;
  std::string peer_;  // the connecting process, from SO_PEERCRED
};

void UnixSocketServer::State::Accept(const std::shared_ptr<State>& self) {
  acceptor.async_accept(net::make_strand(io), [self](beast::error_code ec, local::socket socket) {
    if (ec == net::error::operation_aborted || self->stopped) return;
    if (ec) {
      // EMFILE and friends: keep serving, but pause first so a persistent failure does not
      // spin a pool thread and flood the log.
      SNOWCAR_LOG(kWarn, "api.accept_failed", {{"error", ec.message()}});
      self->accept_backoff.expires_after(std::chrono::milliseconds(100));
      self->accept_backoff.async_wait([self](beast::error_code wait_ec) {
        if (!wait_ec && !self->stopped) self->Accept(self);
      });
      return;
    }
    std::shared_ptr<Session> session;
    bool over_limit = false;
    {
      std::lock_guard lock(self->mu);
      over_limit = self->sessions.size() >= self->options.max_connections;
      const uint64_t id = self->next_id++;
      session = std::make_shared<Session>(std::move(socket), self, id);
      self->sessions.emplace(id, session);
    }
    if (over_limit) {
      SNOWCAR_LOG(kWarn, "api.connection_limit",
                  {{"max_connections", self->options.max_connections}});
      session->Reject(Response::Error(503,
                                      "too many open connections (limit " +
                                          std::to_string(self->options.max_connections) +
                                          "); retry later",
                                      ""));
    } else {
      session->Start();
    }
    self->Accept(self);
  });
}

UnixSocketServer::UnixSocketServer(net::io_context& io, ServerOptions options,
                                   std::shared_ptr<const Router> router)
    : state_(std::make_shared<State>(io, std::move(options), std::move(router))) {}

UnixSocketServer::~UnixSocketServer() { Stop(); }

const std::string& UnixSocketServer::path() const { return state_->options.path; }

size_t UnixSocketServer::open_connections() const {
  std::lock_guard lock(state_->mu);
  return state_->sessions.size();
}

Status UnixSocketServer::Start() {
  const std::string& path = state_->options.path;
  if (!state_->router) return Status::InvalidArgument("UnixSocketServer needs a router");
  SNOWCAR_RETURN_IF_ERROR(internal::PrepareSocketPath(path));
  beast::error_code ec;
  auto fail = [&](std::string_view what) {
    beast::error_code ignored;
    state_->acceptor.close(ignored);
    return Status::FailedPrecondition("socket.path '" + path + "': " + std::string(what) +
                                      " failed: " + ec.message());
  };
  state_->acceptor.open(local(), ec);
  if (ec) return fail("socket()");
  state_->acceptor.bind(local::endpoint(path), ec);
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
  state_->acceptor.listen(net::socket_base::max_listen_connections, ec);
  if (ec) {
    unlink(path.c_str());
    return fail("listen()");
  }
  SNOWCAR_LOG(kInfo, "api.listening", {{"path", path}});
  net::post(state_->acceptor.get_executor(), [s = state_] { s->Accept(s); });
  return Status::Ok();
}

void UnixSocketServer::Stop() {
  if (state_->stopped.exchange(true)) return;
  net::post(state_->acceptor.get_executor(), [s = state_] {
    beast::error_code ignored;
    s->acceptor.close(ignored);
    s->accept_backoff.cancel();
  });
  std::vector<std::shared_ptr<Session>> open;
  {
    std::lock_guard lock(state_->mu);
    for (auto& [id, weak] : state_->sessions) {
      if (auto s = weak.lock()) open.push_back(std::move(s));
    }
  }
  for (auto& s : open) s->Close();
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
