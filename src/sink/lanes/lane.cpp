// SPDX-License-Identifier: Apache-2.0
#include "lane.h"

#include <algorithm>
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/post.hpp>

#include "../commands/command_framed.h"
#include "../writer/call_failure.h"
#include "snowcar/common/log.h"
#include "snowcar/schema_registry/outcomes.h"

namespace snowcar::sink {

std::string_view LaneStateName(LaneState state) {
  switch (state) {
    case LaneState::kRunning:
      return "running";
    case LaneState::kBackingOff:
      return "backing_off";
    case LaneState::kFailed:
      return "failed";
    case LaneState::kStopping:
      return "stopping";
    case LaneState::kStopped:
      return "stopped";
  }
  return "unknown";
}

Lane::Lane(kafka::TopicPartition tp, LaneDeps deps)
    : tp_(std::move(tp)),
      deps_(std::move(deps)),
      strand_(boost::asio::make_strand(deps_.io->get_executor())),
      timer_(strand_) {
  status_.tp = tp_;
}

Lane::~Lane() = default;

void Lane::Post(std::function<void()> fn) { boost::asio::post(strand_, std::move(fn)); }

void Lane::Enqueue(kafka::InRecord record) {
  bool start = false;
  {
    std::lock_guard lock(mu_);
    if (abandoned_ || status_.state == LaneState::kStopping ||
        status_.state == LaneState::kStopped || status_.state == LaneState::kFailed) {
      return;
    }
    if (record.offset <= last_queued_) return;
    last_queued_ = record.offset;
    queue_.push_back(std::move(record));
    status_.queue_depth = queue_.size();
    if (!queue_full_ && queue_.size() >= deps_.options.pause_at) {
      queue_full_ = true;
      UpdatePauseLocked();
    }
    if (!processing_ && status_.state == LaneState::kRunning) {
      processing_ = true;
      start = true;
    }
  }
  if (start) Post([self = shared_from_this()] { self->ProcessNext(); });
}

void Lane::ProcessNext() {
  {
    std::lock_guard lock(mu_);
    if (status_.state != LaneState::kRunning || queue_.empty()) {
      processing_ = false;
      if (status_.state == LaneState::kStopping) status_.state = LaneState::kStopped;
      if (queue_full_ && queue_.size() <= deps_.options.resume_at) {
        queue_full_ = false;
        UpdatePauseLocked();
      }
      return;
    }
    current_ = std::move(queue_.front());
    queue_.pop_front();
    busy_ = true;
    status_.in_flight_offset = current_->offset;
    status_.queue_depth = queue_.size();
    if (queue_full_ && queue_.size() <= deps_.options.resume_at) {
      queue_full_ = false;
      UpdatePauseLocked();
    }
  }
  current_command_.reset();
  current_applied_.reset();
  current_failure_.reset();
  current_history_ = std::make_shared<WriteHistory>();
  current_delivery_.reset();
  Apply();
}

namespace {
constexpr std::string_view kInstanceUnavailable = "INSTANCE_UNAVAILABLE";
// The Schema Registry could not tell (yet) what a framed command's schema id means: it is
// unreachable, failing or refuses snowcar's credentials.
constexpr std::string_view kSchemaRegistryUnavailable = "SCHEMA_REGISTRY_UNAVAILABLE";

// The column of the decision table the record's write is in.
servicenow::CallPurpose PurposeOf(const std::optional<Command>& command,
                                  const SinkSettings& settings) {
  using servicenow::CallPurpose;
  if (!command) return CallPurpose::kPatch;  // never written: any write column reads alike
  switch (command->operation) {
    case Operation::kCreate:
      return CreatePurposeFor(settings.ambiguous_create);
    case Operation::kPatch:
      return CallPurpose::kPatch;
    case Operation::kPut:
      return CallPurpose::kPut;
    case Operation::kDelete:
      return CallPurpose::kDelete;
  }
  return CallPurpose::kPatch;
}
}  // namespace

void Lane::Apply() {
  // The instance cannot be used: send nothing, wait with everyone else at its gate.
  if (deps_.gate != nullptr && !deps_.gate->IsOpen()) {
    return Backoff(Stage::kApply, "waiting for the instance: " + deps_.gate->Read().reason,
                   std::string(kInstanceUnavailable));
  }
  // A command in Confluent's wire format is decoded to JSON first, into a copy: the DLQ gets
  // the record as it came. What a failure leads to is the outcome table's kSchemaById cell:
  // a record the registry says is bad takes the error path, anything else holds it.
  Result<std::optional<kafka::InRecord>> unframed = DecodeFramedParts(*current_, deps_.decoder);
  if (!unframed.ok()) {
    switch (schema_registry::DecideRegistryCall(unframed.status(),
                                                servicenow::CallPurpose::kSchemaById)) {
      case servicenow::Action::kRecordError:
        return HandleFailure(std::nullopt,
                             MakeFailure(ErrorClass::kRecordError, unframed.status().message()));
      case servicenow::Action::kHold:
      default:
        return Backoff(Stage::kApply, unframed.status().message(),
                       std::string(kSchemaRegistryUnavailable));
    }
  }
  Result<Command> decoded =
      DecodeCommand(unframed->has_value() ? **unframed : *current_, *deps_.settings);
  if (!decoded.ok()) {
    return HandleFailure(std::nullopt,
                         MakeFailure(ErrorClass::kRecordError, decoded.status().message()));
  }
  Command command = std::move(decoded).value();
  const bool check_fields = deps_.settings->unknown_field != UnknownFieldBehavior::kPassthrough &&
                            command.operation != Operation::kDelete && deps_.catalog != nullptr;
  if (!check_fields) return Write(std::move(command));

  const std::string table = command.table;
  deps_.catalog->Columns(
      table, strand_,
      [self = shared_from_this(), command = std::move(command)](CatalogAnswer answer) mutable {
        if (answer.failure) return self->HandleFailure(command, std::move(*answer.failure));
        std::vector<std::string> reported;
        Status s =
            ApplyUnknownFieldPolicy(command, *answer.columns, *self->deps_.settings, &reported);
        if (!s.ok()) {
          return self->HandleFailure(command, MakeFailure(ErrorClass::kRecordError, s.message()));
        }
        if (!reported.empty()) {
          std::string names;
          for (const auto& n : reported) names += (names.empty() ? "" : ",") + n;
          SNOWCAR_LOG(kWarn, "sink.fields.unknown_dropped",
                      {{"topic", self->tp_.topic},
                       {"partition", self->tp_.partition},
                       {"offset", self->current_->offset},
                       {"table", command.table},
                       {"fields", names}});
        }
        self->Write(std::move(command));
      });
}

void Lane::Write(Command command) {
  current_command_ = command;
  deps_.writer->Write(
      std::move(command), strand_,
      [self = shared_from_this()](WriteOutcome outcome) {
        self->OnWritten(self->current_command_, std::move(outcome));
      },
      current_history_, cancel_);
}

void Lane::OnWritten(std::optional<Command> command, WriteOutcome outcome) {
  if (outcome.ok()) {
    deps_.metrics->CountApplied(outcome.applied->operation, outcome.ignored, tp_);
    if (outcome.ignored) {
      SNOWCAR_LOG(kInfo, "sink.record.not_found_ignored",
                  {{"topic", tp_.topic},
                   {"partition", tp_.partition},
                   {"offset", current_->offset},
                   {"table", outcome.applied->table},
                   {"sys_id", outcome.applied->sys_id}});
    }
    // Before the success report and the offset: a committed command has its mark on disk.
    if (deps_.origins != nullptr) deps_.origins->Record(*current_, command, *outcome.applied);
    current_applied_ = std::move(outcome.applied);
    return ReportSuccess();
  }
  HandleFailure(std::move(command), std::move(*outcome.failure));
}

void Lane::ReportSuccess() {
  deps_.error_path->OnSuccess(*current_, *current_applied_, strand_,
                              [self = shared_from_this()](const Status& produced) {
                                if (produced.ok()) return self->Complete();
                                self->OnProduceFailed(Stage::kReportSuccess, produced);
                              });
}

// The decision table's Kafka produce failure row (docs/outcomes.md) says what happens: hold
// (produce again after a wait; the row is never written again) for every column today. A
// produce failure is never a record error: the error path is what failed.
void Lane::OnProduceFailed(Stage resume, const Status& produced) {
  switch (servicenow::DecideProduceFailure(PurposeOf(current_command_, *deps_.settings))) {
    case servicenow::Action::kPauseInstance:
      return Backoff(resume, produced.message(), std::string(kInstanceUnavailable));
    case servicenow::Action::kHold:
    default:
      return Backoff(resume, produced.message(), "PRODUCE");
  }
}

void Lane::HandleFailure(std::optional<Command> command, Failure failure) {
  deps_.metrics->CountFailure(failure.klass);
  if (IsHeld(failure.klass)) {
    const std::string klass(ErrorClassName(failure.klass));
    return Backoff(Stage::kApply, failure.message, klass, failure.retry_after_ms);
  }
  current_command_ = std::move(command);
  current_failure_ = std::move(failure);
  current_delivery_ = std::make_shared<ErrorDelivery>();
  RunErrorPath();
}

void Lane::RunErrorPath() {
  deps_.error_path->OnFailure(
      *current_, current_command_, *current_failure_, strand_,
      [self = shared_from_this()](ErrorVerdict verdict, const Status& produced) {
        switch (verdict) {
          case ErrorVerdict::kRetryProduce:
            return self->OnProduceFailed(Stage::kErrorPath, produced);
          case ErrorVerdict::kStop:
            return self->Failed(*self->current_failure_);
          case ErrorVerdict::kComplete:
            self->NoteError(*self->current_failure_);
            return self->Complete();
        }
      },
      current_delivery_);
}

void Lane::Backoff(Stage resume, const std::string& why, const std::string& klass,
                   std::optional<int64_t> at_least_ms) {
  deps_.metrics->CountRetry();
  ++consecutive_retries_;
  const int shift = std::min(consecutive_retries_ - 1, 20);
  const auto grown = deps_.options.initial_backoff * (int64_t{1} << shift);
  auto delay = std::min<std::chrono::milliseconds>(grown, deps_.options.max_backoff);
  // The instance said how long: never sooner, even past the lane's own cap.
  if (at_least_ms && *at_least_ms > delay.count()) delay = std::chrono::milliseconds(*at_least_ms);
  {
    std::lock_guard lock(mu_);
    status_.last_error = why;
    status_.last_error_class = klass;
    status_.backoff_ms = delay.count();
    ++status_.retries;
    busy_ = false;
    if (abandoned_ || status_.state != LaneState::kRunning) {
      // Stopping: the record is left undone; a later owner of the partition applies it.
      processing_ = false;
      if (status_.state == LaneState::kStopping) status_.state = LaneState::kStopped;
      return;
    }
    status_.state = LaneState::kBackingOff;
    UpdatePauseLocked();
  }
  SNOWCAR_LOG(kWarn, "sink.lane.backoff",
              {{"topic", tp_.topic},
               {"partition", tp_.partition},
               {"offset", current_->offset},
               {"class", klass},
               {"retry", consecutive_retries_},
               {"delay_ms", static_cast<int64_t>(delay.count())},
               {"error", why}});
  resume_stage_ = resume;
  // Paused with the whole instance: the gate's probe decides when to go on. The timer only
  // keeps Stop() able to cut the wait short; the gate opening cuts it short as well.
  const bool at_gate = deps_.gate != nullptr && klass == kInstanceUnavailable;
  timer_.expires_after(at_gate ? std::chrono::hours(24) : delay);
  timer_.async_wait(boost::asio::bind_executor(
      strand_, [self = shared_from_this()](const boost::system::error_code&) { self->Resume(); }));
  if (at_gate) {
    std::weak_ptr<Lane> weak = shared_from_this();
    deps_.gate->WhenOpen(strand_, [weak] {
      if (auto self = weak.lock()) self->timer_.cancel();
    });
  }
}

void Lane::Resume() {
  {
    std::lock_guard lock(mu_);
    if (status_.state != LaneState::kBackingOff) {
      // Stop() or Abandon() came during the wait.
      processing_ = false;
      return;
    }
    status_.state = LaneState::kRunning;
    status_.backoff_ms = 0;
    busy_ = true;
    UpdatePauseLocked();
  }
  switch (resume_stage_) {
    case Stage::kApply:
      current_command_.reset();
      return Apply();
    case Stage::kReportSuccess:
      return ReportSuccess();
    case Stage::kErrorPath:
      return RunErrorPath();
  }
}

void Lane::Complete() {
  consecutive_retries_ = 0;
  {
    std::lock_guard lock(mu_);
    busy_ = false;
    status_.in_flight_offset.reset();
    ++status_.completed;
    // Reported under mu_, so an Abandon() that returned has certainly silenced this lane.
    if (!abandoned_ && deps_.events.completed) {
      deps_.events.completed(this, tp_, current_->offset + 1);
    }
  }
  current_.reset();
  ProcessNext();
}

void Lane::Failed(const Failure& failure) {
  std::lock_guard lock(mu_);
  busy_ = false;
  processing_ = false;
  status_.last_error = failure.message;
  status_.last_error_class = ErrorClassName(failure.klass);
  queue_.clear();
  status_.queue_depth = 0;
  if (status_.state == LaneState::kRunning) {
    status_.state = LaneState::kFailed;
    UpdatePauseLocked();
    if (!abandoned_ && deps_.events.failed) deps_.events.failed(this, tp_, failure);
  } else if (status_.state == LaneState::kStopping) {
    status_.state = LaneState::kStopped;
  }
}

void Lane::Stop() {
  cancel_->Cancel();  // first: a call waiting to retry ends now, not after its Retry-After
  std::lock_guard lock(mu_);
  queue_.clear();
  status_.queue_depth = 0;
  switch (status_.state) {
    case LaneState::kRunning:
      status_.state = busy_ ? LaneState::kStopping : LaneState::kStopped;
      break;
    case LaneState::kBackingOff:
      status_.state = LaneState::kStopped;
      Post([self = shared_from_this()] { self->timer_.cancel(); });
      break;
    case LaneState::kFailed:
    case LaneState::kStopping:
    case LaneState::kStopped:
      break;
  }
}

void Lane::Abandon() {
  {
    std::lock_guard lock(mu_);
    abandoned_ = true;
  }
  Stop();
}

void Lane::NoteError(const Failure& failure) {
  std::lock_guard lock(mu_);
  status_.last_error = failure.message;
  status_.last_error_class = ErrorClassName(failure.klass);
}

bool Lane::Busy() const {
  std::lock_guard lock(mu_);
  return busy_;
}

LaneStatus Lane::Snapshot() const {
  std::lock_guard lock(mu_);
  LaneStatus s = status_;
  s.queue_depth = queue_.size();
  return s;
}

void Lane::SetCommitted(int64_t offset) {
  std::lock_guard lock(mu_);
  status_.committed_offset = offset;
}

void Lane::SetHighWatermark(int64_t offset) {
  std::lock_guard lock(mu_);
  status_.high_watermark = offset;
}

void Lane::SetStored(int64_t offset) {
  std::lock_guard lock(mu_);
  status_.stored_offset = std::max(status_.stored_offset, offset);
}

void Lane::UpdatePauseLocked() {
  const bool want =
      queue_full_ || status_.state == LaneState::kBackingOff || status_.state == LaneState::kFailed;
  if (want == paused_) return;
  paused_ = want;
  status_.paused = want;
  if (!abandoned_ && deps_.events.pause) deps_.events.pause(this, tp_, want);
}

}  // namespace snowcar::sink
