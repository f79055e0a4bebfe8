// SPDX-License-Identifier: Apache-2.0
#include "state/rocks_status.h"

#include <string>

namespace snowcar::state {
namespace {

bool Mentions(const std::string& text, std::string_view needle) {
  return text.find(needle) != std::string::npos;
}

StatusCode CodeFor(const rocksdb::Status& s) {
  using C = rocksdb::Status::Code;
  using S = rocksdb::Status::SubCode;
  const std::string text = s.ToString();
  switch (s.code()) {
    case C::kOk:
      return StatusCode::kOk;
    case C::kNotFound:
      return StatusCode::kNotFound;
    case C::kCorruption:
      return StatusCode::kDataLoss;
    case C::kNotSupported:
      return StatusCode::kFailedPrecondition;
    case C::kInvalidArgument:
      return StatusCode::kInvalidArgument;
    case C::kIOError:
      if (s.subcode() == S::kNoSpace || s.subcode() == S::kSpaceLimit) {
        return StatusCode::kResourceExhausted;
      }
      // RocksDB keeps errno only as text; these are the ones that do not heal on retry.
      if (Mentions(text, "Permission denied") || Mentions(text, "Read-only file system") ||
          Mentions(text, "Operation not permitted")) {
        return StatusCode::kPermissionDenied;
      }
      if (Mentions(text, "No space left")) return StatusCode::kResourceExhausted;
      if (Mentions(text, "Not a directory") || Mentions(text, "Is a directory")) {
        return StatusCode::kFailedPrecondition;
      }
      if (s.subcode() == S::kPathNotFound) return StatusCode::kNotFound;
      return StatusCode::kUnavailable;
    case C::kMergeInProgress:
    case C::kBusy:
    case C::kTryAgain:
    case C::kIncomplete:
      return StatusCode::kUnavailable;
    case C::kTimedOut:
      return StatusCode::kDeadlineExceeded;
    case C::kShutdownInProgress:
      return StatusCode::kCancelled;
    case C::kAborted:
      return StatusCode::kUnavailable;
    case C::kColumnFamilyDropped:
      return StatusCode::kFailedPrecondition;
    default:
      return StatusCode::kInternal;
  }
}

}  // namespace

Status FromRocks(const rocksdb::Status& s, std::string_view dir, std::string_view what) {
  if (s.ok()) return Status::Ok();
  std::string message = "state dir ";
  message.append(dir).append(": ").append(what).append(" failed: ").append(s.ToString());
  return Status(CodeFor(s), std::move(message));
}

}  // namespace snowcar::state
