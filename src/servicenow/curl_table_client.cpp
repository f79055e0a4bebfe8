// SPDX-License-Identifier: Apache-2.0
// CurlTableClient: logical calls, the permit queue, retries and auth on top of MultiLoop.
//
// Threading: Send() may run anywhere; it posts to strand_. Everything else in Impl runs on
// strand_ (REQUIRES: on strand) except stats() and ServerNowMillis(), which read atomics or
// take stats_mu_.
#include "snowcar/servicenow/curl_table_client.h"

#include <atomic>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <deque>
#include <future>
#include <mutex>
#include <set>

#include "client_call.h"
#include "curl_multi_loop.h"
#include "snowcar/common/log.h"
#include "snowcar/common/redact.h"
#include "snowcar/servicenow/adaptive_limit.h"
#include "snowcar/servicenow/credential_files.h"
#include "token_source.h"

namespace snowcar::servicenow {
namespace {

struct CurlGlobal {
  CurlGlobal() { curl_global_init(CURL_GLOBAL_DEFAULT); }
};

}  // namespace

struct CurlTableClient::Impl : std::enable_shared_from_this<CurlTableClient::Impl> {
  Impl(boost::asio::io_context& io, ClientOptions opts, ClientSeams seams)
      : io(io),
        strand(boost::asio::make_strand(io)),
        options(std::move(opts)),
        clock(seams.clock != nullptr ? seams.clock : &SystemClock::Instance()),
        jitter(seams.jitter ? std::move(seams.jitter) : DefaultJitter()),
        loop(std::make_shared<MultiLoop>(strand, options.max_concurrent_requests + 1)),
        limit(options.max_concurrent_requests, options.adaptive_throttling),
        credentials(CredentialsOf(options), options.credential_files),
        tokens(options, credentials, *clock,
               [this](const TransferSpec& spec, auto done) {
                 auto t = NewTransfer(spec, options);
                 if (!t.ok()) {
                   Transfer dummy;
                   done(dummy, CURLE_FAILED_INIT);
                   return;
                 }
                 (*t)->done = std::move(done);
                 loop->Add(std::move(t).value());
               }),
        reachability(clock) {
    stats.limit = limit.limit();
  }

  // The gate's probe: one GET through the usual path (retries, auth, reachability).
  void StartGate(const std::weak_ptr<Impl>& weak) {
    gate = std::make_shared<InstanceGate>(
        strand,
        [weak](const std::string& target, std::function<void(bool)> done) {
          auto self = weak.lock();
          if (!self) return done(false);
          self->RereadIfRefused();
          auto call = std::make_shared<Call>();
          call->request.method = Method::kGet;
          call->request.target = target;
          call->request.request_id = NewRequestId();
          call->list = true;
          call->url = self->options.base_url + target;
          call->executor = self->strand;
          call->done = [done = std::move(done)](CallResult r) { done(!r.instance_unreachable); };
          self->Begin(std::move(call));
        },
        options.retry.initial_backoff_ms, options.retry.max_backoff_ms);
  }
  // A call ended for a reason about the whole instance.
  void InstanceUnusable(const std::string& reason, const std::string& target) {
    reachability.OnUnreachable(reason);
    if (gate) gate->Close(reason, target);
  }
  // The instance refused the credentials for good (a final 401, or the token endpoint): the
  // gate is closed, and the next probe reads the credential files first.
  void CredentialsRefused(const std::string& reason, const std::string& target) {
    credentials_refused = true;
    InstanceUnusable("credentials refused: " + reason, target);
  }
  // Before a probe: when the credentials were refused since the last one, a Secret corrected
  // in place may be in the files now. Read at most once per probe, i.e. at the gate's growing
  // pace, however many calls were refused.
  void RereadIfRefused() {
    if (!credentials_refused || !credentials.HasFiles()) return;
    credentials_refused = false;
    if (credentials.Reread()) tokens.Reset();
  }

  boost::asio::io_context& io;
  Strand strand;
  const ClientOptions options;
  const Clock* clock;
  JitterSource jitter;
  std::shared_ptr<MultiLoop> loop;
  AdaptiveLimit limit;
  CredentialFiles credentials;  // what every attempt sends; re-read after a refusal
  TokenSource tokens;
  bool credentials_refused = false;  // since the last probe

  InstanceReachability reachability;         // fed by every answer and every final verdict
  std::shared_ptr<InstanceGate> gate;        // likewise; lanes and pollers wait at it
  std::deque<std::shared_ptr<Call>> queue;   // waiting for a permit
  std::set<std::shared_ptr<Call>> sleeping;  // waiting to retry
  int in_flight = 0;
  bool stopped = false;
  std::atomic<int64_t> drift_ms{0};
  std::atomic<bool> drift_known{false};  // a Date header was seen

  mutable std::mutex stats_mu;
  ClientStats stats;  // GUARDED_BY(stats_mu)

  void UpdateStats() {
    std::lock_guard lock(stats_mu);
    stats.in_flight = in_flight;
    stats.max_in_flight = std::max(stats.max_in_flight, in_flight);
    stats.limit = limit.limit();
    stats.queued = static_cast<int>(queue.size());
    stats.token_requests = tokens.requests();
  }

  // --- calls -------------------------------------------------------------------------------

  void Begin(std::shared_ptr<Call> call) {
    if (stopped) {
      Fail(call, OutcomeClass::kRetryable, "the client stopped before the call was sent");
      return;
    }
    if (call->Cancelled()) return Fail(call, OutcomeClass::kRetryable, "cancelled; not sent");
    call->started_ms = clock->NowMillis();
    StartAttempt(std::move(call));
  }

  void StartAttempt(std::shared_ptr<Call> call) {
    if (options.auth_type != AuthType::kOAuth2) {
      Enqueue(std::move(call));
      return;
    }
    tokens.Get([self = shared_from_this(), call](Result<std::string> token) {
      self->UpdateStats();
      if (token.ok()) {
        call->token = std::move(token).value();
        self->Enqueue(call);
        return;
      }
      ++call->attempts;
      if (token.status().code() == StatusCode::kPermissionDenied) {
        self->CredentialsRefused(redact::Mask(token.status().message()), call->request.target);
        self->Fail(call, OutcomeClass::kUnauthorized, token.status().message(),
                   /*instance_unreachable=*/true);
      } else if (token.status().code() == StatusCode::kCancelled || self->stopped) {
        self->Fail(call, OutcomeClass::kRetryable, token.status().message());
      } else {
        // No token, no request: whatever kept the endpoint from issuing one stops every call.
        Verdict v;
        v.klass = OutcomeClass::kRetryable;
        v.retry = true;
        v.instance_unreachable = true;
        v.message = token.status().message();
        self->RetryOrFinish(call, v, TableResponse{}, 0);
      }
    });
  }

  void Enqueue(std::shared_ptr<Call> call) {
    queue.push_back(std::move(call));
    Pump();
  }

  // Hands permits to waiting calls while the adaptive limit allows.
  void Pump() {
    while (!stopped && !queue.empty() && in_flight < limit.limit()) {
      auto call = std::move(queue.front());
      queue.pop_front();
      Launch(call);
    }
    UpdateStats();
  }

  void Launch(const std::shared_ptr<Call>& call) {
    // The last moment a withdrawn call can be held back: past here its bytes go out.
    if (call->Cancelled()) return Fail(call, OutcomeClass::kRetryable, "cancelled; not sent");
    TransferSpec spec;
    spec.method = call->request.method;
    spec.url = call->url;
    spec.body = call->request.body;
    spec.headers.push_back("X-Request-Id: " + call->request.request_id);
    for (const auto& [name, value] : call->request.headers) {
      std::string line = name + ": ";
      line += value;
      spec.headers.push_back(std::move(line));
    }
    spec.basic_auth = options.auth_type == AuthType::kBasic;
    if (spec.basic_auth) {
      Credentials current = credentials.Current();
      spec.username = std::move(current.username);
      spec.password = std::move(current.password);
    }
    spec.bearer = call->token;
    auto transfer = NewTransfer(spec, options);
    ++call->attempts;
    if (!transfer.ok()) {
      Fail(call, OutcomeClass::kPermanent, transfer.status().message());
      return;
    }
    ++in_flight;
    {
      std::lock_guard lock(stats_mu);
      ++stats.attempts;
      if (call->attempts > 1) ++stats.retries;
    }
    SNOWCAR_LOG(kTrace, "snow.http.send",
                {{"method", MethodName(call->request.method)},
                 {"target", redact::Mask(call->request.target)},
                 {"attempt", call->attempts},
                 {"request_id", call->request.request_id}});
    (*transfer)->done = [self = shared_from_this(), call](Transfer& t, CURLcode code) {
      self->Finished(call, t, code);
    };
    loop->Add(std::move(transfer).value());
  }

  void Finished(const std::shared_ptr<Call>& call, Transfer& t, CURLcode code) {
    --in_flight;
    const int64_t now = clock->NowMillis();
    t.response.status = t.ResponseStatus();
    if (code == CURLE_ABORTED_BY_CALLBACK && stopped) {
      Fail(call, OutcomeClass::kRetryable, "the client stopped while the call was in flight");
      Pump();
      return;
    }
    TableResponse parsed = ParseTableResponse(t.response, now, call->request.rows_as_text);
    if (parsed.server_date_ms) {
      drift_ms.store(*parsed.server_date_ms - now);
      drift_known.store(true);
    }

    AttemptFacts facts;
    facts.method = call->request.method;
    facts.list_request = call->list;
    facts.curl_code = code;
    facts.request_sent = t.RequestSent();
    facts.too_large = t.too_large || code == CURLE_FILESIZE_EXCEEDED;
    facts.http_status = t.response.status;
    facts.parsed = t.response.status != 0 ? &parsed : nullptr;
    Verdict v = Classify(facts);
    if (t.response.status != 0 && v.klass != OutcomeClass::kUnauthorized) {
      reachability.OnAnswered();
      if (gate) gate->Open();
    }

    curl_off_t total_us = 0;
    curl_easy_getinfo(t.easy, CURLINFO_TOTAL_TIME_T, &total_us);
    {
      std::lock_guard lock(stats_mu);
      stats.request_seconds[{OperationLabel(*call), StatusClassLabel(t.response.status)}].Observe(
          static_cast<double>(total_us) / 1e6);
      if (t.response.status == 0) {
        ++stats.unreachable;
      } else if (v.throttled) {
        ++stats.throttled;
      } else if (v.klass == OutcomeClass::kOk) {
        ++stats.answered_ok;
      } else {
        ++stats.failed;
      }
    }
    if (v.throttled) {
      limit.OnThrottled();
    } else if (v.klass == OutcomeClass::kOk ||
               (v.klass != OutcomeClass::kRetryable && v.klass != OutcomeClass::kAmbiguous)) {
      limit.OnSuccess();
    } else {
      limit.OnFailure();
    }
    SNOWCAR_LOG(kTrace, "snow.http.answer",
                {{"method", MethodName(call->request.method)},
                 {"status", t.response.status},
                 {"class", OutcomeClassName(v.klass)},
                 {"attempt", call->attempts},
                 {"request_id", call->request.request_id}});
    Pump();

    if (v.reauthenticate && !call->reauthenticated) {
      // One fresh token (or one more basic attempt) per call; a second 401 is final.
      call->reauthenticated = true;
      if (options.auth_type == AuthType::kOAuth2) tokens.Invalidate(call->token);
      StartAttempt(call);
      return;
    }
    RetryOrFinish(call, v, std::move(parsed), t.response.status);
  }

  void RetryOrFinish(const std::shared_ptr<Call>& call, const Verdict& v, TableResponse parsed,
                     int http_status) {
    const bool cancelled = call->Cancelled();
    if (v.retry && !stopped && !cancelled) {
      const int64_t elapsed = clock->NowMillis() - call->started_ms;
      auto wait =
          NextRetryWaitMs(options.retry, call->attempts, elapsed, parsed.retry_after_ms, jitter);
      if (wait) {
        SNOWCAR_LOG(kDebug, "snow.http.retry",
                    {{"method", MethodName(call->request.method)},
                     {"target", redact::Mask(call->request.target)},
                     {"status", http_status},
                     {"class", OutcomeClassName(v.klass)},
                     {"attempt", call->attempts},
                     {"wait_ms", *wait},
                     {"request_id", call->request.request_id},
                     {"reason", v.message}});
        call->wait = std::make_unique<boost::asio::steady_timer>(strand);
        call->wait->expires_after(std::chrono::milliseconds(*wait));
        sleeping.insert(call);
        call->wait->async_wait([self = shared_from_this(), call](boost::system::error_code) {
          self->sleeping.erase(call);
          call->StopWakeOnCancel();
          if (self->stopped) {
            self->Fail(call, OutcomeClass::kRetryable, "the client stopped during a retry wait");
            return;
          }
          if (call->Cancelled()) {
            return self->Fail(call, OutcomeClass::kRetryable, "cancelled while waiting to retry");
          }
          self->StartAttempt(call);
        });
        // A withdrawn call does not sleep out a long Retry-After: its wait ends at once.
        WakeOnCancel(call, weak_from_this(), strand);
        return;
      }
    }
    if (v.instance_unreachable && !stopped) {
      if (v.klass == OutcomeClass::kUnauthorized) {
        CredentialsRefused(redact::Mask(v.message), call->request.target);
      } else {
        InstanceUnusable(redact::Mask(v.message), call->request.target);
      }
    }
    CallResult result;
    result.klass = v.klass;
    result.http_status = http_status;
    result.message = v.message;
    result.instance_unreachable = v.instance_unreachable;
    if (v.retry && cancelled) {
      result.message += " (the call was cancelled: not sent again)";
    } else if (v.retry) {
      result.message += " (gave up after " + std::to_string(call->attempts) + " attempts)";
    }
    result.response = std::move(parsed);
    if (v.empty_list) {  // v1's "No Record found": an empty page, not an error
      result.response.kind = BodyKind::kList;
      result.response.error_message.clear();
      result.response.error_detail.clear();
    }
    Complete(call, std::move(result));
  }

  void Fail(const std::shared_ptr<Call>& call, OutcomeClass klass, std::string_view message,
            bool instance_unreachable = false) {
    CallResult result;
    result.klass = klass;
    result.message = redact::Mask(message);
    result.instance_unreachable = instance_unreachable;
    Complete(call, std::move(result));
  }

  void Complete(const std::shared_ptr<Call>& call, CallResult result) {
    result.attempts = call->attempts;
    result.request_id = call->request.request_id;
    result.method = call->request.method;
    result.target = call->request.target;
    if (!result.ok()) {
      SNOWCAR_LOG(kDebug, "snow.http.failed",
                  {{"method", MethodName(call->request.method)},
                   {"target", redact::Mask(call->request.target)},
                   {"class", OutcomeClassName(result.klass)},
                   {"status", result.http_status},
                   {"attempts", result.attempts},
                   {"request_id", result.request_id},
                   {"message", result.message}});
    }
    boost::asio::post(call->executor,
                      [done = std::move(call->done), result = std::move(result)]() mutable {
                        done(std::move(result));
                      });
  }

  void StopOnStrand() {
    if (stopped) return;
    stopped = true;
    if (gate) gate->Stop();
    for (auto& call : sleeping) call->wait->cancel();  // their handlers fail them
    auto waiting = std::move(queue);
    queue.clear();
    for (auto& call : waiting) Fail(call, OutcomeClass::kRetryable, "the client stopped");
    tokens.FailAll(Status::Cancelled("the client stopped"));
    loop->Shutdown();  // in-flight transfers end with CURLE_ABORTED_BY_CALLBACK
    UpdateStats();
  }
};

Result<std::unique_ptr<CurlTableClient>> CurlTableClient::Create(boost::asio::io_context& io,
                                                                 ClientOptions options,
                                                                 ClientSeams seams) {
  static CurlGlobal global;
  SNOWCAR_RETURN_IF_ERROR(options.Validate());
  for (const std::string* secret : {&options.password, &options.client_secret,
                                    &options.proxy_password, &options.tls_key_password}) {
    if (!secret->empty()) redact::RegisterSecret(*secret);
  }
  if (!options.username.empty() && !options.password.empty()) {
    // What the Authorization header carries; registered as its own secret (RegisterSecret
    // masks the base64 form of a value, not of user:password).
    redact::RegisterSecret(options.username + ":" + options.password);
  }
  if (!options.tls_verify) {
    SNOWCAR_LOG(kWarn, "snow.tls.verify_off",
                {{"note", "snow.tls.verify=false: the instance's certificate is NOT checked"}});
  }
  auto impl = std::make_shared<Impl>(io, std::move(options), std::move(seams));
  impl->StartGate(impl);
  return std::unique_ptr<CurlTableClient>(new CurlTableClient(std::move(impl)));
}

CurlTableClient::CurlTableClient(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}

CurlTableClient::~CurlTableClient() { Stop(); }

void CurlTableClient::Send(InstanceRequest request, boost::asio::any_io_executor executor,
                           Completion done) {
  auto call = std::make_shared<Call>();
  if (request.request_id.empty()) request.request_id = NewRequestId();
  call->list = request.method == Method::kGet && IsTableListTarget(request.target);
  call->url = request.target.starts_with("http://") || request.target.starts_with("https://")
                  ? request.target
                  : impl_->options.base_url + request.target;
  call->request = std::move(request);
  call->executor = std::move(executor);
  call->done = std::move(done);
  boost::asio::post(impl_->strand,
                    [impl = impl_, call]() mutable { impl->Begin(std::move(call)); });
}

int64_t CurlTableClient::ServerNowMillis() const {
  return impl_->clock->NowMillis() + impl_->drift_ms.load();
}

bool CurlTableClient::ServerClockKnown() const { return impl_->drift_known.load(); }

void CurlTableClient::Stop() {
  if (!impl_) return;
  if (impl_->io.stopped() || impl_->strand.running_in_this_thread()) {
    impl_->StopOnStrand();  // nothing else can be on the strand now: do it here
    return;
  }
  auto done = std::make_shared<std::promise<void>>();
  auto future = done->get_future();
  boost::asio::post(impl_->strand, [impl = impl_, done]() {
    impl->StopOnStrand();
    done->set_value();
  });
  if (future.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
    SNOWCAR_LOG(kError, "snow.http.stop_timeout",
                {{"note", "the io_context did not run the client's stop within 10 s"}});
  }
}

InstanceReachability& CurlTableClient::reachability() { return impl_->reachability; }

InstanceGate* CurlTableClient::gate() { return impl_->gate.get(); }

ClientStats CurlTableClient::stats() const {
  ClientStats stats;
  {
    std::lock_guard lock(impl_->stats_mu);
    stats = impl_->stats;
  }
  stats.credential_rereads = impl_->credentials.rereads();
  return stats;
}

}  // namespace snowcar::servicenow
