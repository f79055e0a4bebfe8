// SPDX-License-Identifier: Apache-2.0
#include "admin_front.h"

#include <array>
#include <boost/asio/connect.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/write.hpp>
#include <deque>
#include <optional>
#include <thread>

#include "snowcar/common/log.h"

namespace snowcar::broker::internal {
namespace {

namespace net = boost::asio;
using tcp = net::ip::tcp;

// Larger than any message a client or the mock sends (the mock's fetch answers stay below a
// consumer's fetch.max.bytes, 50 MiB by default); a bigger size field means a broken stream.
constexpr uint32_t kMaxMessageBytes = uint32_t{512} << 20;

uint32_t SizeOf(const std::array<unsigned char, 4>& b) {
  return (uint32_t{b[0]} << 24) | (uint32_t{b[1]} << 16) | (uint32_t{b[2]} << 8) | uint32_t{b[3]};
}

std::string Framed(const std::string& payload) {
  std::string out;
  const auto n = static_cast<uint32_t>(payload.size());
  out.reserve(payload.size() + 4);
  for (int shift = 24; shift >= 0; shift -= 8)
    out.push_back(static_cast<char>((n >> shift) & 0xff));
  out += payload;
  return out;
}

struct Shared {
  PortMap ports;  // mock port -> front port
  CreateTopicFn create;
};

// One client connection and its relay to one mock broker. Every handler runs on the
// connection's strand (both sockets share it), so nothing here needs a lock.
class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(tcp::socket client, uint16_t mock_port, const Shared* shared)
      : client_(std::move(client)),
        upstream_(client_.get_executor()),
        mock_port_(mock_port),
        shared_(shared) {}

  void Start() {
    upstream_.async_connect(tcp::endpoint(net::ip::address_v4::loopback(), mock_port_),
                            [self = shared_from_this()](boost::system::error_code ec) {
                              if (ec) return self->Close();  // the mock broker is down
                              self->ReadClient();
                              self->ReadUpstream();
                            });
  }

  void Close() {
    if (closed_) return;
    closed_ = true;
    boost::system::error_code ignored;
    client_.shutdown(tcp::socket::shutdown_both, ignored);
    client_.close(ignored);
    upstream_.shutdown(tcp::socket::shutdown_both, ignored);
    upstream_.close(ignored);
  }

 private:
  // An answer the client is owed, in request order: relayed from the mock, or made here.
  struct Owed {
    int32_t correlation_id = 0;
    int16_t api_key = 0;
    int16_t api_version = 0;
    std::optional<std::string> made_here;  // a CreateTopics answer
  };

  // --- client -> mock -----------------------------------------------------------------
  void ReadClient() {
    net::async_read(client_, net::buffer(client_size_),
                    [self = shared_from_this()](boost::system::error_code ec, size_t) {
                      const uint32_t n = SizeOf(self->client_size_);
                      if (ec || n == 0 || n > kMaxMessageBytes) return self->Close();
                      self->client_message_.resize(n);
                      net::async_read(self->client_, net::buffer(self->client_message_),
                                      [self](boost::system::error_code ec2, size_t) {
                                        if (ec2) return self->Close();
                                        self->OnRequest();
                                      });
                    });
  }

  void OnRequest() {
    const auto header = ReadRequestHeader(client_message_);
    if (!header) return Close();
    if (header->api_key == kApiCreateTopics) {
      auto answer = AnswerCreateTopics(client_message_, shared_->create);
      if (!answer) {
        SNOWCAR_LOG(kWarn, "broker.front.bad_create_topics",
                    {{"version", header->api_version}, {"bytes", client_message_.size()}});
        return Close();
      }
      owed_.push_back(
          Owed{header->correlation_id, header->api_key, header->api_version, std::move(answer)});
      SendOwedMadeHere();
      return ReadClient();
    }
    if (header->expects_answer) {
      owed_.push_back(Owed{header->correlation_id, header->api_key, header->api_version, {}});
    }
    upstream_out_ = Framed(client_message_);
    net::async_write(upstream_, net::buffer(upstream_out_),
                     [self = shared_from_this()](boost::system::error_code ec, size_t) {
                       if (ec) return self->Close();
                       self->ReadClient();
                     });
  }

  // --- mock -> client -----------------------------------------------------------------
  void ReadUpstream() {
    net::async_read(upstream_, net::buffer(upstream_size_),
                    [self = shared_from_this()](boost::system::error_code ec, size_t) {
                      const uint32_t n = SizeOf(self->upstream_size_);
                      if (ec || n == 0 || n > kMaxMessageBytes) return self->UpstreamGone();
                      self->upstream_message_.resize(n);
                      net::async_read(self->upstream_, net::buffer(self->upstream_message_),
                                      [self](boost::system::error_code ec2, size_t) {
                                        if (ec2) return self->UpstreamGone();
                                        self->OnAnswer();
                                      });
                    });
  }

  void OnAnswer() {
    std::string answer = std::move(upstream_message_);
    const auto id = ReadCorrelationId(answer);
    if (!id) return UpstreamGone();
    std::optional<Owed> owed;
    for (auto it = owed_.begin(); it != owed_.end(); ++it) {
      if (!it->made_here && it->correlation_id == *id) {
        owed = std::move(*it);
        owed_.erase(it);
        break;
      }
    }
    if (owed) {
      switch (owed->api_key) {
        case kApiMetadata:
          RewriteMetadataAnswer(answer, owed->api_version, shared_->ports);
          break;
        case kApiFindCoordinator:
          RewriteFindCoordinatorAnswer(answer, owed->api_version, shared_->ports);
          break;
        case kApiVersions:
          AddCreateTopicsToApiVersions(answer, owed->api_version);
          break;
        default:
          break;
      }
    }
    ToClient(Framed(answer));
    SendOwedMadeHere();
    ReadUpstream();
  }

  // Answers made here go out once every answer owed before them has gone.
  void SendOwedMadeHere() {
    while (!owed_.empty() && owed_.front().made_here) {
      ToClient(Framed(*owed_.front().made_here));
      owed_.pop_front();
    }
  }

  // The mock closed the connection (a broker taken down, an injected transport error):
  // what it answered before still reaches the client, then the client sees the close.
  void UpstreamGone() {
    upstream_gone_ = true;
    if (to_client_.empty()) Close();
  }

  void ToClient(std::string framed) {
    to_client_.push_back(std::move(framed));
    if (to_client_.size() == 1) WriteClient();
  }

  void WriteClient() {
    net::async_write(client_, net::buffer(to_client_.front()),
                     [self = shared_from_this()](boost::system::error_code ec, size_t) {
                       if (ec) return self->Close();
                       self->to_client_.pop_front();
                       if (!self->to_client_.empty()) return self->WriteClient();
                       if (self->upstream_gone_) self->Close();
                     });
  }

  tcp::socket client_;
  tcp::socket upstream_;
  const uint16_t mock_port_;
  const Shared* shared_;
  bool closed_ = false;
  bool upstream_gone_ = false;
  std::deque<Owed> owed_;
  std::array<unsigned char, 4> client_size_{};
  std::string client_message_;
  std::string upstream_out_;
  std::array<unsigned char, 4> upstream_size_{};
  std::string upstream_message_;
  std::deque<std::string> to_client_;  // framed; the front one is being written
};

}  // namespace

struct AdminFront::Impl {
  net::io_context io{1};
  std::optional<net::executor_work_guard<net::io_context::executor_type>> work{io.get_executor()};
  Shared shared;
  std::vector<std::unique_ptr<tcp::acceptor>> acceptors;
  std::vector<uint16_t> mock_ports;
  std::vector<std::weak_ptr<Connection>> connections;  // touched on the io thread only
  std::string bootstrap;
  std::thread thread;

  void Accept(size_t i) {
    acceptors[i]->async_accept(
        net::make_strand(io), [this, i](boost::system::error_code ec, tcp::socket socket) {
          if (ec == net::error::operation_aborted) return;
          if (!ec) {
            auto c = std::make_shared<Connection>(std::move(socket), mock_ports[i], &shared);
            std::erase_if(connections, [](const auto& w) { return w.expired(); });
            connections.push_back(c);
            c->Start();
          }
          Accept(i);
        });
  }
};

AdminFront::AdminFront(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Result<std::unique_ptr<AdminFront>> AdminFront::Start(const std::vector<uint16_t>& mock_ports,
                                                      CreateTopicFn create) {
  auto impl = std::make_unique<Impl>();
  impl->shared.create = std::move(create);
  impl->mock_ports = mock_ports;
  for (uint16_t mock_port : mock_ports) {
    auto acceptor = std::make_unique<tcp::acceptor>(impl->io);
    boost::system::error_code ec;
    const tcp::endpoint any_port(net::ip::address_v4::loopback(), 0);
    acceptor->open(any_port.protocol(), ec);
    if (!ec) acceptor->bind(any_port, ec);
    if (!ec) acceptor->listen(net::socket_base::max_listen_connections, ec);
    const uint16_t port = ec ? 0 : acceptor->local_endpoint(ec).port();
    if (ec) {
      return Status::Internal(
          "embedded broker: cannot listen on 127.0.0.1 for the front of "
          "mock port " +
          std::to_string(mock_port) + ": " + ec.message());
    }
    impl->shared.ports[mock_port] = port;
    if (!impl->bootstrap.empty()) impl->bootstrap += ",";
    impl->bootstrap += "127.0.0.1:" + std::to_string(port);
    impl->acceptors.push_back(std::move(acceptor));
  }
  for (size_t i = 0; i < impl->acceptors.size(); ++i) impl->Accept(i);
  Impl* raw = impl.get();
  impl->thread = std::thread([raw] { raw->io.run(); });
  return std::unique_ptr<AdminFront>(new AdminFront(std::move(impl)));
}

AdminFront::~AdminFront() {
  Impl* impl = impl_.get();
  net::post(impl->io, [impl] {
    boost::system::error_code ignored;
    for (auto& a : impl->acceptors) a->close(ignored);
    for (auto& weak : impl->connections) {
      if (auto c = weak.lock()) c->Close();
    }
    impl->work.reset();
  });
  // Every operation ends (aborted) once its socket is closed, so run() returns by itself.
  if (impl->thread.joinable()) impl->thread.join();
}

const std::string& AdminFront::bootstrap() const { return impl_->bootstrap; }

}  // namespace snowcar::broker::internal
