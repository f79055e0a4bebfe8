// SPDX-License-Identifier: Apache-2.0
#include "curl_multi_loop.h"

#include <unistd.h>

#include <boost/asio/post.hpp>
#include <vector>

namespace snowcar::servicenow {

MultiLoop::MultiLoop(Strand strand, long max_connections)  // NOLINT(google-runtime-int)
    : strand_(std::move(strand)), timer_(strand_) {
  multi_ = curl_multi_init();
  curl_multi_setopt(multi_, CURLMOPT_SOCKETFUNCTION, &MultiLoop::OnSocket);
  curl_multi_setopt(multi_, CURLMOPT_SOCKETDATA, this);
  curl_multi_setopt(multi_, CURLMOPT_TIMERFUNCTION, &MultiLoop::OnTimer);
  curl_multi_setopt(multi_, CURLMOPT_TIMERDATA, this);
  curl_multi_setopt(multi_, CURLMOPT_MAX_HOST_CONNECTIONS, max_connections);
  curl_multi_setopt(multi_, CURLMOPT_MAXCONNECTS, max_connections + 2);
}

MultiLoop::~MultiLoop() {
  // Normally Shutdown ran on the strand already; this is the last handler's thread or the
  // owner's after the io_context stopped, so no other thread touches the multi handle.
  shut_down_ = true;
  if (multi_ != nullptr) {
    for (auto& [easy, transfer] : transfers_) curl_multi_remove_handle(multi_, easy);
    transfers_.clear();
    curl_multi_cleanup(multi_);
  }
  for (auto& [fd, watch] : watches_) watch->descriptor.release();
}

void MultiLoop::Add(std::unique_ptr<Transfer> transfer) {
  CURL* easy = transfer->easy;
  if (shut_down_) {
    auto t = std::shared_ptr<Transfer>(std::move(transfer));
    boost::asio::post(strand_, [t]() { t->done(*t, CURLE_ABORTED_BY_CALLBACK); });
    return;
  }
  curl_easy_setopt(easy, CURLOPT_CLOSESOCKETFUNCTION, &MultiLoop::OnCloseSocket);
  curl_easy_setopt(easy, CURLOPT_CLOSESOCKETDATA, this);
  transfers_.emplace(easy, std::move(transfer));
  CURLMcode rc = curl_multi_add_handle(multi_, easy);
  if (rc != CURLM_OK) {
    auto node = transfers_.extract(easy);
    auto t = std::shared_ptr<Transfer>(std::move(node.mapped()));
    boost::asio::post(strand_, [t]() { t->done(*t, CURLE_FAILED_INIT); });
  }
}

void MultiLoop::Shutdown() {
  if (shut_down_) return;
  shut_down_ = true;
  timer_.cancel();
  std::vector<std::unique_ptr<Transfer>> ended;
  for (auto& [easy, transfer] : transfers_) {
    curl_multi_remove_handle(multi_, easy);
    ended.push_back(std::move(transfer));
  }
  transfers_.clear();
  curl_multi_cleanup(multi_);  // closes cached connections (OnCloseSocket forgets them)
  multi_ = nullptr;
  for (auto& [fd, watch] : watches_) {
    watch->gone = true;
    watch->descriptor.cancel();
    watch->descriptor.release();
  }
  watches_.clear();
  for (auto& t : ended) t->done(*t, CURLE_ABORTED_BY_CALLBACK);
}

int MultiLoop::OnSocket(CURL*, curl_socket_t fd, int what, void* self_ptr, void*) {
  auto* self = static_cast<MultiLoop*>(self_ptr);
  if (self->shut_down_) return 0;
  if (what == CURL_POLL_REMOVE) {
    auto it = self->watches_.find(fd);
    if (it != self->watches_.end()) it->second->want = 0;  // keep registered until closed
    return 0;
  }
  auto& watch = self->watches_[fd];
  if (!watch) watch = std::make_shared<Watch>(self->strand_, fd);
  watch->want = what;
  self->Arm(fd, watch);
  return 0;
}

int MultiLoop::OnCloseSocket(void* self_ptr, curl_socket_t fd) {
  static_cast<MultiLoop*>(self_ptr)->Forget(fd);
  return ::close(fd);
}

void MultiLoop::Forget(int fd) {
  auto it = watches_.find(fd);
  if (it == watches_.end()) return;
  it->second->gone = true;
  it->second->descriptor.cancel();
  it->second->descriptor.release();  // curl owns the descriptor and closes it
  watches_.erase(it);
}

void MultiLoop::Arm(int fd, const std::shared_ptr<Watch>& watch) {
  using Wait = boost::asio::posix::stream_descriptor::wait_type;
  auto self = shared_from_this();
  if ((watch->want & CURL_POLL_IN) != 0 && !watch->reading) {
    watch->reading = true;
    watch->descriptor.async_wait(Wait::wait_read, [self, fd, watch](boost::system::error_code ec) {
      watch->reading = false;
      if (ec || watch->gone || self->shut_down_) return;
      if ((watch->want & CURL_POLL_IN) == 0) return;
      self->Action(fd, CURL_CSELECT_IN);
      if (!watch->gone) self->Arm(fd, watch);
    });
  }
  if ((watch->want & CURL_POLL_OUT) != 0 && !watch->writing) {
    watch->writing = true;
    watch->descriptor.async_wait(Wait::wait_write, [self, fd, watch](boost::system::error_code ec) {
      watch->writing = false;
      if (ec || watch->gone || self->shut_down_) return;
      if ((watch->want & CURL_POLL_OUT) == 0) return;
      self->Action(fd, CURL_CSELECT_OUT);
      if (!watch->gone) self->Arm(fd, watch);
    });
  }
}

int MultiLoop::OnTimer(CURLM*, long timeout_ms, void* self_ptr) {  // NOLINT(google-runtime-int)
  auto* self = static_cast<MultiLoop*>(self_ptr);
  if (self->shut_down_) return 0;
  self->timer_.cancel();
  if (timeout_ms < 0) return 0;
  self->timer_.expires_after(std::chrono::milliseconds(timeout_ms));
  self->timer_.async_wait([self = self->shared_from_this()](boost::system::error_code ec) {
    if (ec || self->shut_down_) return;
    self->Action(CURL_SOCKET_TIMEOUT, 0);
  });
  return 0;
}

void MultiLoop::Action(curl_socket_t fd, int events) {
  int running = 0;
  curl_multi_socket_action(multi_, fd, events, &running);
  Reap();
}

void MultiLoop::Reap() {
  std::vector<std::pair<std::unique_ptr<Transfer>, CURLcode>> finished;
  int left = 0;
  while (CURLMsg* msg = curl_multi_info_read(multi_, &left)) {
    if (msg->msg != CURLMSG_DONE) continue;
    CURL* easy = msg->easy_handle;
    CURLcode code = msg->data.result;
    curl_multi_remove_handle(multi_, easy);
    auto node = transfers_.extract(easy);
    if (!node.empty()) finished.emplace_back(std::move(node.mapped()), code);
  }
  // Outside libcurl's loop: a completion may start the next attempt.
  for (auto& [transfer, code] : finished) transfer->done(*transfer, code);
}

}  // namespace snowcar::servicenow
