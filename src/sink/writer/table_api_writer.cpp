// SPDX-License-Identifier: Apache-2.0
#include "table_api_writer.h"

#include <boost/json/serialize.hpp>
#include <memory>
#include <optional>

#include "../origin/origin_recorder.h"
#include "call_failure.h"
#include "snowcar/common/log.h"
#include "snowcar/common/text.h"
#include "snowcar/common/url_encoding.h"

namespace snowcar::sink {
namespace {

using servicenow::Action;
using servicenow::CallPurpose;
using servicenow::CallResult;
using servicenow::InstanceRequest;
using servicenow::Method;
using servicenow::OutcomeClass;

// Bounds on the loops a command can go through in one try (lookup -> PATCH 404 -> lookup
// ..., lost DELETE answers resent). Past them the instance is behaving too strangely to
// guess: the record fails as AMBIGUOUS (or RETRIES_EXHAUSTED for plain resends, which the
// lane retries later).
constexpr int kMaxRounds = 5;

std::string TablePath(const std::string& table) { return "/api/now/table/" + table; }

std::string RecordPath(const std::string& table, const std::string& sys_id) {
  return TablePath(table) + "/" + sys_id;
}

// A field of a returned row as text: a plain string, or the "value" of a reference field
// answered as {"link": ..., "value": ...}.
std::optional<std::string> FieldText(const boost::json::value* v) {
  if (v == nullptr) return std::nullopt;
  if (v->is_string()) return std::string(v->as_string());
  if (v->is_object()) {
    const boost::json::value* inner = v->as_object().if_contains("value");
    if (inner != nullptr && inner->is_string()) return std::string(inner->as_string());
  }
  return std::nullopt;
}

std::string SysIdOf(const CallResult& result) {
  const boost::json::value* v = result.response.record.if_contains("sys_id");
  if (v != nullptr && v->is_string()) return std::string(v->as_string());
  return {};
}

}  // namespace

struct TableApiWriter::Op : std::enable_shared_from_this<TableApiWriter::Op> {
  TableApiWriter* writer = nullptr;
  Command command;
  boost::asio::any_io_executor executor;
  Done done;
  bool finished = false;
  std::shared_ptr<WriteHistory> history;  // shared with the lane's other tries of the record
  std::shared_ptr<servicenow::CallCancel> cancel;  // the lane's: set when it lets go
  int lookups = 0;
  int deletes = 0;

  const SinkSettings& settings() const { return writer->settings_; }

  void Send(Method method, std::string target, std::string body,
            std::function<void(CallResult)> next) {
    InstanceRequest r;
    r.method = method;
    r.target = std::move(target);
    r.body = std::move(body);
    r.cancel = cancel;
    writer->client_.Send(std::move(r), executor, std::move(next));
  }

  std::string What(Method method, const std::string& sys_id) const {
    std::string w(servicenow::MethodName(method));
    w += " " + command.table;
    if (!sys_id.empty()) w += "/" + sys_id;
    return w;
  }

  // ---- outcomes ----------------------------------------------------------------------------
  void Succeed(Operation op, std::string sys_id, const CallResult& result, bool ignored = false,
               std::string body = {}) {
    if (finished) return;
    finished = true;
    WriteOutcome out;
    Applied a;
    a.operation = op;
    a.table = command.table;
    a.sys_id = std::move(sys_id);
    a.http_status = result.http_status;
    a.request_id = result.request_id;
    if (!ignored) ReadWrittenVersion(result.response.record, a);
    if (settings().reporter_include_request_body) a.request_body = std::move(body);
    out.applied = std::move(a);
    out.ignored = ignored;
    done(std::move(out));
  }

  void Fail(Failure failure) {
    if (finished) return;
    finished = true;
    WriteOutcome out;
    out.failure = std::move(failure);
    done(std::move(out));
  }

  // ---- entry -----------------------------------------------------------------------------
  void Run() {
    switch (command.operation) {
      case Operation::kCreate:
        return Create();
      case Operation::kPatch:
      case Operation::kPut:
        return Update();
      case Operation::kDelete:
        return Delete();
    }
  }

  // The column of the decision table a POST of this command is in.
  CallPurpose CreatePurpose() const { return CreatePurposeFor(settings().ambiguous_create); }

  bool Correlating() const {
    return settings().ambiguous_create == AmbiguousCreateBehavior::kCorrelationLookup &&
           writer->store_ != nullptr;
  }

  void Create() {
    if (settings().ambiguous_create == AmbiguousCreateBehavior::kCorrelationLookup) {
      if (command.correlation_value.empty()) {
        return Fail(MakeFailure(ErrorClass::kRecordError,
                                "snow.sink.create.ambiguous.behavior=correlation_lookup needs the "
                                "correlation field '" +
                                    settings().correlation_field +
                                    "' in every CREATE, and this record has none"));
      }
      if (Correlating()) return FromCache();
    }
    // An earlier try of this record lost a POST's answer: a create naming its sys_id asks
    // whether that POST made the row before sending another.
    if (history->ambiguous_posts > 0 && !command.sys_id.empty() &&
        settings().ambiguous_create != AmbiguousCreateBehavior::kFailAmbiguous) {
      return Verify();
    }
    Post();
  }

  // ---- CREATE ----------------------------------------------------------------------------
  std::string CreateBody() const {
    boost::json::object body = command.fields;
    if (!command.sys_id.empty()) body["sys_id"] = command.sys_id;
    return boost::json::serialize(body);
  }

  void Post() {
    // Every POST whose answer was lost may have created a row: bound them per record, lane
    // retries included, instead of per try.
    if (history->ambiguous_posts >= settings().max_ambiguous_posts) {
      Failure f = MakeFailure(
          ErrorClass::kAmbiguous,
          "POST " + command.table + ": " + std::to_string(history->ambiguous_posts) +
              " POSTs sent and none answered (each may have created a row); no more are sent "
              "(snow.retry.max.attempts=" +
              std::to_string(settings().max_ambiguous_posts) + ")");
      f.attempts = history->ambiguous_posts;
      return Fail(std::move(f));
    }
    std::string body = CreateBody();
    auto self = shared_from_this();
    Send(Method::kPost, TablePath(command.table), body,
         [self, body](CallResult result) { self->OnPost(std::move(result), body); });
  }

  void OnPost(CallResult result, const std::string& body) {
    if (result.ok()) {
      std::string sys_id = SysIdOf(result);
      if (sys_id.empty()) sys_id = command.sys_id;
      Remember(sys_id);
      return Succeed(Operation::kCreate, std::move(sys_id), result, false, body);
    }
    // A lost answer: the POST may or may not have created the row.
    if (result.klass == OutcomeClass::kAmbiguous) ++history->ambiguous_posts;
    const Action action = servicenow::Decide(result, CreatePurpose());
    switch (action) {
      case Action::kResendCreate:
        if (!command.sys_id.empty()) return Verify();
        SNOWCAR_LOG(kWarn, "sink.create.ambiguous_retry",
                    {{"table", command.table}, {"request_id", result.request_id}});
        return Post();
      case Action::kLookupAgain:
        if (!command.sys_id.empty()) return Verify();
        return Lookup();
      default: {
        Failure f = FailureFromCall(result, What(Method::kPost, command.sys_id), action);
        if (result.klass == OutcomeClass::kAmbiguous) {
          f.message +=
              " (snow.sink.create.ambiguous.behavior=fail_ambiguous: the row may or may "
              "not exist)";
        }
        return Fail(std::move(f));
      }
    }
  }

  // A create with a known sys_id after a lost answer: the row either exists or not.
  void Verify() {
    auto self = shared_from_this();
    // The version fields come back too: a row still at version 0 shows the very version
    // the lost POST made, which the source can then mark (docs/semantics.md).
    Send(Method::kGet,
         RecordPath(command.table, command.sys_id) +
             "?sysparm_fields=sys_id%2Csys_mod_count%2Csys_updated_on",
         {}, [self](CallResult result) {
           if (result.ok()) {
             self->Remember(self->command.sys_id);
             Applied seen;
             ReadWrittenVersion(result.response.record, seen);
             if (seen.sys_mod_count != 0u) result.response.record.erase("sys_mod_count");
             return self->Succeed(Operation::kCreate, self->command.sys_id, result);
           }
           if (result.klass == OutcomeClass::kNotFound) return self->Post();
           self->Fail(FailureFromCall(result, self->What(Method::kGet, self->command.sys_id),
                                      CallPurpose::kLookup));
         });
  }

  // ---- correlation -----------------------------------------------------------------------
  void Remember(const std::string& sys_id) {
    if (!Correlating() || command.correlation_value.empty() || sys_id.empty()) return;
    Status s = writer->store_->PutCorrelation(command.table, settings().correlation_field,
                                              command.correlation_value, sys_id);
    if (!s.ok()) {
      SNOWCAR_LOG(kWarn, "sink.correlation.put_failed",
                  {{"table", command.table}, {"error", s.message()}});
    }
  }

  void FromCache() {
    auto cached = writer->store_->GetCorrelation(command.table, settings().correlation_field,
                                                 command.correlation_value);
    if (!cached.ok()) {
      SNOWCAR_LOG(kWarn, "sink.correlation.get_failed",
                  {{"table", command.table}, {"error", cached.status().message()}});
      return Lookup();
    }
    if (!cached->has_value()) return Lookup();
    PatchRow(**cached, /*from_cache=*/true);
  }

  void Lookup() {
    if (++lookups > kMaxRounds) {
      return Fail(MakeFailure(ErrorClass::kAmbiguous,
                              "correlation lookup of " + command.table + "." +
                                  settings().correlation_field + " did not settle after " +
                                  std::to_string(kMaxRounds) + " rounds; nothing more written"));
    }
    const std::string query = settings().correlation_field + "=" + command.correlation_value;
    // The field comes back too, so the row can be checked before it is written to.
    std::string target = TablePath(command.table) + "?sysparm_query=" + PercentEncode(query) +
                         "&sysparm_fields=sys_id%2C" + PercentEncode(settings().correlation_field) +
                         "&sysparm_limit=2";
    auto self = shared_from_this();
    Send(Method::kGet, std::move(target), {},
         [self](const CallResult& result) { self->OnLookup(result); });
  }

  void OnLookup(const CallResult& result) {
    if (!result.ok()) {
      return Fail(FailureFromCall(
          result,
          "correlation lookup GET " + command.table + "?" + settings().correlation_field + "=...",
          CallPurpose::kLookup));
    }
    const auto& rows = result.response.rows;
    if (rows.empty()) return Post();
    if (rows.size() >= 2) {
      Failure f = MakeFailure(ErrorClass::kAmbiguous,
                              "correlation lookup: 2 or more rows of " + command.table + " have " +
                                  settings().correlation_field + "=" + command.correlation_value +
                                  "; nothing written");
      f.http_status = result.http_status;
      f.request_id = result.request_id;
      f.attempts = result.attempts;
      return Fail(std::move(f));
    }
    std::string sys_id;
    std::optional<std::string> carried;
    if (rows[0].is_object()) {
      const boost::json::object& row = rows[0].as_object();
      const boost::json::value* v = row.if_contains("sys_id");
      if (v != nullptr && v->is_string()) sys_id = std::string(v->as_string());
      carried = FieldText(row.if_contains(settings().correlation_field));
    }
    if (carried != command.correlation_value) {
      // The instance read the query differently than meant (an ignored term, a looser
      // comparison): this row is not known to be the one, so it is not written to, and a
      // POST could duplicate the one that is.
      Failure f = MakeFailure(ErrorClass::kAmbiguous,
                              "correlation lookup on " + command.table + " answered a row whose " +
                                  settings().correlation_field + " is " +
                                  (carried ? "'" + *carried + "'" : "missing") + ", not '" +
                                  command.correlation_value + "'; nothing written");
      f.http_status = result.http_status;
      f.request_id = result.request_id;
      f.attempts = result.attempts;
      return Fail(std::move(f));
    }
    if (sys_id.empty()) {
      return Fail(MakeFailure(ErrorClass::kRecordError, "correlation lookup on " + command.table +
                                                            " answered a row without a sys_id"));
    }
    Remember(sys_id);
    PatchRow(sys_id, /*from_cache=*/false);
  }

  void PatchRow(const std::string& sys_id, bool from_cache) {
    std::string body = boost::json::serialize(command.fields);
    auto self = shared_from_this();
    Send(Method::kPatch, RecordPath(command.table, sys_id), body,
         [self, sys_id, from_cache, body](const CallResult& result) {
           if (result.ok()) return self->Succeed(Operation::kPatch, sys_id, result, false, body);
           const Action action = servicenow::Decide(result, CallPurpose::kPatch);
           if (action == Action::kNotFoundPolicy) {
             // The row the cache (or a lookup a moment ago) named is gone: for this PATCH the
             // policy is to look the value up again, whatever not.found.behavior says.
             if (from_cache) {
               Status s = self->writer->store_->EraseCorrelation(self->command.table,
                                                                 self->settings().correlation_field,
                                                                 self->command.correlation_value);
               if (!s.ok()) {
                 SNOWCAR_LOG(kWarn, "sink.correlation.erase_failed",
                             {{"table", self->command.table}, {"error", s.message()}});
               }
             }
             return self->Lookup();
           }
           self->Fail(UpdateFailure(result, self->What(Method::kPatch, sys_id), action));
         });
  }

  // A PATCH or PUT whose answer was lost every time the client sent it is held by the
  // decision table (nothing says the record is wrong, and sending it again cannot do harm
  // twice); the message says so.
  static Failure UpdateFailure(const CallResult& result, const std::string& what, Action action) {
    Failure f = FailureFromCall(result, what, action);
    if (result.klass == OutcomeClass::kAmbiguous && action == Action::kHold) {
      f.message += "; it is sent again later (resending a PATCH or PUT is harmless)";
    }
    return f;
  }

  // ---- PATCH / PUT -------------------------------------------------------------------------
  void Update() {
    const Method method = command.operation == Operation::kPut ? Method::kPut : Method::kPatch;
    std::string body = boost::json::serialize(command.fields);
    auto self = shared_from_this();
    Send(method, RecordPath(command.table, command.sys_id), body,
         [self, method, body](const CallResult& result) {
           if (result.ok()) {
             return self->Succeed(self->command.operation, self->command.sys_id, result, false,
                                  body);
           }
           const Action action = servicenow::Decide(
               result, method == Method::kPut ? CallPurpose::kPut : CallPurpose::kPatch);
           if (action == Action::kNotFoundPolicy) return self->NotFound(result, method);
           self->Fail(UpdateFailure(result, self->What(method, self->command.sys_id), action));
         });
  }

  void NotFound(const CallResult& result, Method method) {
    switch (settings().not_found) {
      case NotFoundBehavior::kFail: {
        Failure f = FailureFromCall(result, What(method, command.sys_id), Action::kRecordError);
        f.klass = ErrorClass::kNotFound;
        f.message += " (snow.sink.not.found.behavior=fail)";
        return Fail(std::move(f));
      }
      case NotFoundBehavior::kIgnore:
        return Succeed(command.operation, command.sys_id, result, /*ignored=*/true);
      case NotFoundBehavior::kCreate:
        if (command.operation == Operation::kDelete) {
          return Succeed(command.operation, command.sys_id, result, /*ignored=*/true);
        }
        // The row does not exist: create it under the addressed sys_id.
        return Post();
    }
  }

  // ---- DELETE ------------------------------------------------------------------------------
  void Delete() {
    auto self = shared_from_this();
    ++deletes;
    Send(Method::kDelete, RecordPath(command.table, command.sys_id), {},
         [self](const CallResult& result) {
           if (result.ok()) {
             return self->Succeed(Operation::kDelete, self->command.sys_id, result);
           }
           const std::string what = self->What(Method::kDelete, self->command.sys_id);
           const Action action = servicenow::Decide(result, CallPurpose::kDelete);
           switch (action) {
             case Action::kNotFoundPolicy:
               // After a lost answer an earlier DELETE (of this try or of an earlier one) may
               // have removed the row already.
               if (self->history->delete_sent) {
                 return self->Succeed(Operation::kDelete, self->command.sys_id, result);
               }
               return self->NotFound(result, Method::kDelete);
             case Action::kResendDelete:
               self->history->delete_sent = true;
               if (self->deletes < kMaxRounds) return self->Delete();
               // Still lost: the lane holds the record (the history remembers the send).
               return self->Fail(FailureFromCall(result, what, Action::kHold));
             default:
               return self->Fail(FailureFromCall(result, what, action));
           }
         });
  }
};

void TableApiWriter::Write(Command command, boost::asio::any_io_executor executor, Done done,
                           std::shared_ptr<WriteHistory> history,
                           std::shared_ptr<servicenow::CallCancel> cancel) {
  auto op = std::make_shared<Op>();
  op->cancel = std::move(cancel);
  op->writer = this;
  op->history = history != nullptr ? std::move(history) : std::make_shared<WriteHistory>();
  op->command = std::move(command);
  op->executor = std::move(executor);
  op->done = std::move(done);
  op->Run();
}

}  // namespace snowcar::sink
