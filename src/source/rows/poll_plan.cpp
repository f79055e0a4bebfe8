// SPDX-License-Identifier: Apache-2.0
#include "poll_plan.h"

#include <algorithm>
#include <string>

#include "snowcar/common/time.h"

namespace snowcar::source {
namespace {

__extension__ typedef unsigned __int128 u128;

std::optional<u128> ParseHex128(std::string_view text) {
  if (text.size() != 32) return std::nullopt;
  u128 value = 0;
  for (char c : text) {
    int digit = 0;
    if (c >= '0' && c <= '9') {
      digit = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      digit = c - 'a' + 10;
    } else {
      return std::nullopt;
    }
    value = (value << 4) | static_cast<u128>(digit);
  }
  return value;
}

std::string FormatHex128(u128 value) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out(32, '0');
  for (int i = 31; i >= 0; --i) {
    out[static_cast<size_t>(i)] = kDigits[static_cast<int>(value & 0xF)];
    value >>= 4;
  }
  return out;
}

int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

std::string Position(int64_t ts, std::string_view sys_id) {
  return "(" + FormatSnowTimestamp(ts) + ", \"" + std::string(sys_id) + "\")";
}

// log2 of how many ids (after, upto] spans, rounded down; nullopt for ids that are not
// 32 hex digits.
std::optional<int> SysIdRangeBits(std::string_view after, std::string_view upto) {
  u128 low = 0;
  if (!after.empty()) {
    auto a = ParseHex128(after);
    if (!a) return std::nullopt;
    low = *a;
  }
  u128 high = ~static_cast<u128>(0);
  if (!upto.empty()) {
    auto u = ParseHex128(upto);
    if (!u) return std::nullopt;
    high = *u;
  }
  if (high <= low) return 0;
  u128 width = high - low;
  int bits = 0;
  while (width > 1) {
    width >>= 1;
    ++bits;
  }
  return bits;
}

// True when every row `inner` can match is also one `outer` can match.
bool RangeWithin(const PlannedQuery& inner, const PlannedQuery& outer) {
  if (outer.shape == QueryShape::kMoveOn) {
    if (inner.shape == QueryShape::kMoveOn) {
      return outer.after_ts <= inner.after_ts && inner.hi_ts <= outer.hi_ts;
    }
    return outer.after_ts < inner.drain_ts && inner.drain_ts <= outer.hi_ts;
  }
  if (inner.shape != QueryShape::kDrain || inner.drain_ts != outer.drain_ts) return false;
  if (inner.after_sys_id < outer.after_sys_id) return false;
  if (outer.upto_sys_id.empty()) return true;
  return !inner.upto_sys_id.empty() && inner.upto_sys_id <= outer.upto_sys_id;
}

bool InQuery(const PlannedQuery& q, int64_t ts, std::string_view sys_id) {
  if (q.shape == QueryShape::kMoveOn) return ts > q.after_ts && ts <= q.hi_ts;
  if (q.shape == QueryShape::kKeyset) {
    return (ts == q.drain_ts && sys_id > q.after_sys_id) || (ts > q.drain_ts && ts <= q.hi_ts);
  }
  return ts == q.drain_ts && sys_id > q.after_sys_id &&
         (q.upto_sys_id.empty() || sys_id <= q.upto_sys_id);
}

// Below this many bits of sys_id space, a second whose ambiguous count stood for readable
// rows would need more than kMaxRowsPerSecond rows (every narrowed range still holds a
// page of hidden rows plus a readable one): the count must include hidden rows.
int MinAmbiguousBits(int limit) {
  int depth = 0;
  int64_t rows = static_cast<int64_t>(limit) + 1;
  while (rows <= kMaxRowsPerSecond && depth < 127) {
    rows *= 2;
    ++depth;
  }
  return 128 - depth;
}

}  // namespace

std::string_view CountReadingName(CountReading reading) {
  switch (reading) {
    case CountReading::kUnknown:
      return "unknown";
    case CountReading::kIncludesHidden:
      return "includes_hidden";
    case CountReading::kReadableOnly:
      return "readable_only";
  }
  return "unknown";
}

std::optional<std::string> MiddleSysId(std::string_view after, std::string_view upto) {
  u128 low = 0;  // smallest id that may lie in (after, upto]
  if (!after.empty()) {
    auto a = ParseHex128(after);
    if (!a || *a == ~static_cast<u128>(0)) return std::nullopt;
    low = *a + 1;
  }
  u128 high = ~static_cast<u128>(0);
  if (!upto.empty()) {
    auto u = ParseHex128(upto);
    if (!u) return std::nullopt;
    high = *u;
  }
  if (low >= high) return std::nullopt;
  return FormatHex128(low + (high - low) / 2);
}

std::optional<int64_t> ContinuedSecond(const PlannedQuery& query) {
  if (query.shape == QueryShape::kDrain || query.shape == QueryShape::kKeyset) {
    return query.drain_ts;
  }
  return std::nullopt;
}

std::string DescribeQuery(const PlannedQuery& q) {
  std::string out;
  if (q.shape == QueryShape::kMoveOn) {
    out = "moveon(" + FormatSnowTimestamp(q.after_ts) + "," + FormatSnowTimestamp(q.hi_ts) + "]";
  } else if (q.shape == QueryShape::kKeyset) {
    out = "keyset " + FormatSnowTimestamp(q.drain_ts) + " >\"" + q.after_sys_id + "\" .." +
          FormatSnowTimestamp(q.hi_ts) + "]";
  } else {
    out = "drain " + FormatSnowTimestamp(q.drain_ts) + " >\"" + q.after_sys_id + "\"";
    if (!q.upto_sys_id.empty()) out += " <=\"" + q.upto_sys_id + "\"";
  }
  if (q.count) out += " count";
  if (q.with_total) out += " +total";
  return out;
}

PollPlan::PollPlan(PlanSettings settings) : settings_(settings) {
  if (settings_.limit < 1) settings_.limit = 1;
  Restore(std::nullopt);
}

state::Cursor PollPlan::StartPoint() const {
  return state::Cursor{settings_.start_ts - 1, "", state::Phase::kBackfill};
}

void PollPlan::StartMoveOnFrom(int64_t after_ts) {
  shape_ = QueryShape::kMoveOn;
  after_ts_ = std::max(after_ts, settings_.start_ts - 1);
  hi_stack_.clear();
  drain_after_.clear();
  upto_stack_.clear();
  counting_ = false;
  count_first_ = false;
  rereading_ = false;
  page_open_ = false;
  page_accepted_ = 0;
}

void PollPlan::Restore(const std::optional<state::Cursor>& cursor) {
  in_sweep_ = false;
  expected_rows_ = -1;
  rows_read_ = 0;
  if (!cursor) {
    last_row_ = StartPoint();
    furthest_row_ = last_row_;
    phase_ = state::Phase::kBackfill;
    StartMoveOnFrom(settings_.start_ts - 1);
    return;
  }
  last_row_ = *cursor;
  furthest_row_ = *cursor;
  phase_ = cursor->phase;
  const int64_t start_point = settings_.start_ts - 1;
  if (settings_.overlap_seconds > 0) {
    // (X, "") with X = max(start point, T - overlap): nothing of second X read.
    const int64_t x = std::max(start_point, cursor->ts - settings_.overlap_seconds);
    StartMoveOnFrom(x - 1);
    return;
  }
  if (!cursor->sys_id.empty() && cursor->ts > start_point) {
    StartMoveOnFrom(cursor->ts - 1);  // resets the range state
    shape_ = QueryShape::kDrain;
    drain_ts_ = cursor->ts;
    drain_after_ = cursor->sys_id;
    return;
  }
  StartMoveOnFrom(cursor->ts - 1);
}

void PollPlan::RewindForIdleWake() {
  if (in_sweep_ || settings_.overlap_seconds <= 0) return;  // overlap 0: nothing to re-read
  const state::Phase phase = phase_;
  Restore(furthest_row_);
  phase_ = phase;
}

int64_t PollPlan::LaggedSecond(int64_t server_now_ms) const {
  return FloorDiv(server_now_ms - settings_.safety_lag_seconds * 1000, 1000);
}

void PollPlan::BeginSweep(int64_t server_now_ms) { BeginSweepTo(LaggedSecond(server_now_ms)); }

void PollPlan::BeginSweepTo(int64_t hi_ts) {
  hi_ = hi_ts;
  ambiguous_range_.reset();
  in_sweep_ = true;
  counting_ = false;
  count_first_ = false;
  rereading_ = false;
  page_open_ = false;
  page_accepted_ = 0;
  if (shape_ == QueryShape::kMoveOn) {
    hi_stack_.clear();
    if (after_ts_ >= hi_) in_sweep_ = false;
  }
}

PlannedQuery PollPlan::Next() const {
  PlannedQuery q;
  q.shape = shape_;
  q.count = counting_;
  // A drain's range is one second: counting it is cheap in either phase. A counted range's
  // last pages count what is left of it, so the page that reaches its end proves it.
  const bool last_pages =
      expected_rows_ >= 0 && expected_rows_ - rows_read_ <= 2 * int64_t{settings_.limit};
  q.with_total = !counting_ && !rereading_ &&
                 (phase_ == state::Phase::kStream || shape_ == QueryShape::kDrain || last_pages);
  if (shape_ == QueryShape::kMoveOn) {
    q.after_ts = after_ts_;
    q.hi_ts = RangeHi();
  } else if (shape_ == QueryShape::kKeyset) {
    q.drain_ts = drain_ts_;
    q.after_sys_id = drain_after_;
    q.hi_ts = RangeHi();
  } else {
    q.drain_ts = drain_ts_;
    q.after_sys_id = drain_after_;
    q.upto_sys_id = DrainUpto();
  }
  return q;
}

Status PollPlan::Accept(int64_t ts, std::string_view sys_id) {
  if (!page_open_) {
    page_open_ = true;
    page_accepted_ = 0;
    if (shape_ == QueryShape::kMoveOn) {
      check_ts_ = after_ts_ + 1;
      check_sys_id_.clear();
    } else {  // drain and keyset: after (drain_ts_, drain_after_)
      check_ts_ = drain_ts_;
      check_sys_id_ = drain_after_;
    }
  }
  bool in_range = true;
  if (shape_ == QueryShape::kMoveOn) {
    in_range = ts > after_ts_ && ts <= RangeHi();
  } else if (shape_ == QueryShape::kKeyset) {
    in_range = ts >= drain_ts_ && ts <= RangeHi();  // order (below) checks the rest
  } else {
    in_range = ts == drain_ts_ && (upto_stack_.empty() || sys_id <= upto_stack_.back());
  }
  const bool after = ts > check_ts_ || (ts == check_ts_ && sys_id > check_sys_id_);
  if (!in_range || !after) {
    return Status::FailedPrecondition(
        "row " + Position(ts, sys_id) +
        (in_range
             ? " does not sort strictly after the position " + Position(check_ts_, check_sys_id_)
             : " lies outside the range of the query") +
        " of " + DescribeQuery(Next()) +
        "; the instance did not honour the query's ORDERBY and range, or the integration "
        "user's time zone is not UTC (timestamps are rendered in the user's zone): set the "
        "user's time_zone to UTC, then restart");
  }
  check_ts_ = ts;
  check_sys_id_.assign(sys_id);  // reuses its buffer: no allocation per row
  if (ambiguous_range_ && InQuery(*ambiguous_range_, ts, sys_id)) {
    // Under the other reading this range was all hidden rows: the count leaves them out.
    reading_ = CountReading::kReadableOnly;
    ambiguous_range_.reset();
  }
  ++page_accepted_;
  return Status::Ok();
}

Status PollPlan::OnPage(size_t raw_rows, std::optional<int64_t> total) {
  rows_read_ += static_cast<int64_t>(raw_rows);
  const size_t accepted = page_open_ ? page_accepted_ : 0;
  page_open_ = false;
  page_accepted_ = 0;
  const bool full = raw_rows >= static_cast<size_t>(settings_.limit);
  if (rereading_ && accepted == 0 && !full) {
    rereading_ = false;
    RangeDone();  // the rows the count saw were all on this page and all hidden
    return Status::Ok();
  }
  rereading_ = false;
  if (accepted > 0) {
    last_row_ = state::Cursor{check_ts_, check_sys_id_, phase_};
    if (last_row_.ts > furthest_row_.ts ||
        (last_row_.ts == furthest_row_.ts && last_row_.sys_id > furthest_row_.sys_id)) {
      furthest_row_ = last_row_;
    }
    if (total && *total == static_cast<int64_t>(raw_rows)) {
      // Every row the count covers came on this page: nothing of the range is left to read
      // or hidden behind it.
      RangeDone();
      return Status::Ok();
    }
    if (full && shape_ != QueryShape::kDrain) {
      // One request reads on: the rest of the last row's second OR the seconds after it.
      shape_ = QueryShape::kKeyset;
      drain_ts_ = last_row_.ts;
      drain_after_ = last_row_.sys_id;
      hi_stack_.clear();
      upto_stack_.clear();
      return Status::Ok();
    }
    // Otherwise continue from the last row: a short page may be short only because rows were
    // hidden after the limit, so drain its last second (counted first), then move on.
    if (shape_ != QueryShape::kDrain) {
      shape_ = QueryShape::kDrain;
      drain_ts_ = last_row_.ts;
      hi_stack_.clear();
      upto_stack_.clear();
    }
    drain_after_ = last_row_.sys_id;
    if (!full) {
      counting_ = true;
      count_first_ = true;
    }
    return Status::Ok();
  }
  if (full) {
    return Status::FailedPrecondition(
        "a full page of " + std::to_string(raw_rows) + " rows from " + DescribeQuery(Next()) +
        " held no usable row, so the position cannot move; fix the rows or raise the page "
        "size (batch.size)");
  }
  if (shape_ == QueryShape::kKeyset) {
    if (total && *total == 0) {
      RangeDone();
      return Status::Ok();
    }
    // Empty after a full page: read on the two-query way, from a count of the second's rest.
    shape_ = QueryShape::kDrain;
    counting_ = true;
    return Status::Ok();
  }
  counting_ = true;
  if (total) return OnCount(*total);  // the page counted its own range: no request of its own
  return Status::Ok();
}

Status PollPlan::OnCount(int64_t total) {
  counting_ = false;
  if (count_first_) {
    // Counted before reading: 0 finishes the range, anything else means "read it".
    count_first_ = false;
    if (total <= 0) RangeDone();
    return Status::Ok();
  }
  if (total <= 0) {
    RangeDone();
    return Status::Ok();
  }
  if (total <= settings_.limit) {
    if (reading_ == CountReading::kIncludesHidden) {
      rereading_ = true;  // every counted row was on the empty page: all hidden
      return Status::Ok();
    }
    // Hidden rows only, or readable rows behind a page of hidden ones: look closer.
    return Split(total, /*ambiguous=*/true);
  }
  // More rows than a page, and the first page of them all hidden: narrow the range.
  return Split(total, /*ambiguous=*/false);
}

Status PollPlan::Split(int64_t total, bool ambiguous) {
  if (ambiguous) {
    PlannedQuery current = Next();
    current.count = false;
    if (!ambiguous_range_ || !RangeWithin(current, *ambiguous_range_)) {
      ambiguous_range_ = std::move(current);
    }
  }
  if (shape_ == QueryShape::kMoveOn) {
    const int64_t range_hi = RangeHi();
    if (range_hi - after_ts_ >= 2) {
      hi_stack_.push_back(after_ts_ + (range_hi - after_ts_) / 2);
      return Status::Ok();
    }
    // One second holds more rows than a page, and the first page of them is hidden: split
    // the second by sys_id. Once it is read, the move-on range continues after it.
    shape_ = QueryShape::kDrain;
    drain_ts_ = range_hi;
    drain_after_.clear();
    upto_stack_.clear();
    hi_stack_.clear();
  }
  if (ambiguous && reading_ == CountReading::kUnknown) {
    const std::optional<int> bits = SysIdRangeBits(drain_after_, DrainUpto());
    if (bits && *bits < MinAmbiguousBits(settings_.limit)) {
      // Readable rows here would take more than kMaxRowsPerSecond rows in this second: the
      // count includes hidden rows.
      reading_ = CountReading::kIncludesHidden;
      RangeDone();
      return Status::Ok();
    }
  }
  if (auto mid = MiddleSysId(drain_after_, DrainUpto())) {
    upto_stack_.push_back(*mid);
    return Status::Ok();
  }
  if (ambiguous) {
    const std::string upto = DrainUpto();
    if (!upto.empty() && SysIdRangeBits(drain_after_, upto) == 0) {
      // One id, counted, not on the page: no page of hidden rows can stand in front of it,
      // so the count includes hidden rows (a "readable only" learned earlier came from rows
      // that arrived while a range was being narrowed).
      reading_ = CountReading::kIncludesHidden;
      RangeDone();
      return Status::Ok();
    }
    if (reading_ != CountReading::kReadableOnly) {
      RangeDone();  // ids that cannot be split: taken as the hidden rows they most likely are
      return Status::Ok();
    }
  }
  return Status::FailedPrecondition(
      "second " + FormatSnowTimestamp(drain_ts_) + " holds " + std::to_string(total) +
      " rows after sys_id \"" + drain_after_ +
      "\" but a whole page of them is hidden from the integration user (ACL), and these ids "
      "are not 32 hex digits, so the range cannot be split; grant the user read access to "
      "the rows or raise the page size (batch.size)");
}

void PollPlan::RangeDone() {
  counting_ = false;
  count_first_ = false;
  rereading_ = false;
  if (shape_ == QueryShape::kKeyset) {
    // Everything after the position up to HI: the sweep's range is read.
    StartMoveOnFrom(RangeHi());
    if (after_ts_ >= hi_) in_sweep_ = false;
    return;
  }
  if (shape_ == QueryShape::kMoveOn) {
    after_ts_ = RangeHi();
    if (!hi_stack_.empty()) hi_stack_.pop_back();
    if (after_ts_ >= hi_) in_sweep_ = false;
    return;
  }
  if (!upto_stack_.empty()) {
    drain_after_ = upto_stack_.back();
    upto_stack_.pop_back();
    return;
  }
  StartMoveOnFrom(drain_ts_);
  if (after_ts_ >= hi_) in_sweep_ = false;
}

state::Phase PollPlan::FinishSweep(int64_t server_now_ms) {
  const int64_t lagged_ms = server_now_ms - settings_.safety_lag_seconds * 1000;
  const int64_t behind_ms = lagged_ms - (hi_ + 1) * 1000;
  phase_ =
      behind_ms <= settings_.poll_interval_ms ? state::Phase::kStream : state::Phase::kBackfill;
  return phase_;
}

}  // namespace snowcar::source
