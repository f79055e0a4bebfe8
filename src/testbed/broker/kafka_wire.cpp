// SPDX-License-Identifier: Apache-2.0
#include "kafka_wire.h"

#include <algorithm>
#include <vector>

namespace snowcar::broker::internal {
namespace {

// Big-endian reads over a payload that never run past its end: a short or malformed
// message turns `ok` false and every later read returns 0.
class Reader {
 public:
  explicit Reader(std::string_view data, size_t pos = 0)
      : data_(data), pos_(std::min(pos, data.size())), ok_(pos <= data.size()) {}

  int16_t I16() { return static_cast<int16_t>(Unsigned(2)); }
  int32_t I32() { return static_cast<int32_t>(Unsigned(4)); }
  int8_t I8() { return static_cast<int8_t>(Unsigned(1)); }
  // A STRING or NULLABLE_STRING; nullopt for null (length -1) or a read past the end.
  std::optional<std::string_view> String() {
    const int16_t length = I16();
    if (!ok_ || length < 0) return std::nullopt;
    if (!Need(static_cast<size_t>(length))) return std::nullopt;
    std::string_view s = data_.substr(pos_, static_cast<size_t>(length));
    pos_ += static_cast<size_t>(length);
    return s;
  }
  // An ARRAY count: -1 (null) reads as 0; a count that cannot fit the rest is an error.
  int32_t Count(size_t min_item_bytes) {
    const int32_t n = I32();
    if (n < 0) return 0;
    if (!ok_ || static_cast<size_t>(n) * min_item_bytes > data_.size() - pos_) {
      ok_ = false;
      return 0;
    }
    return n;
  }
  size_t pos() const { return pos_; }
  bool ok() const { return ok_; }
  bool at_end() const { return pos_ == data_.size(); }

 private:
  bool Need(size_t n) {
    if (!ok_ || data_.size() - pos_ < n) ok_ = false;
    return ok_;
  }
  uint32_t Unsigned(size_t n) {
    if (!Need(n)) return 0;
    uint32_t v = 0;
    for (size_t i = 0; i < n; ++i) v = (v << 8) | static_cast<unsigned char>(data_[pos_ + i]);
    pos_ += n;
    return v;
  }

  std::string_view data_;
  size_t pos_ = 0;
  bool ok_ = true;
};

void PutI16(std::string& out, int16_t v) {
  const auto u = static_cast<uint16_t>(v);
  out.push_back(static_cast<char>(u >> 8));
  out.push_back(static_cast<char>(u & 0xff));
}

void PutI32(std::string& out, int32_t v) {
  const auto u = static_cast<uint32_t>(v);
  for (int shift = 24; shift >= 0; shift -= 8)
    out.push_back(static_cast<char>((u >> shift) & 0xff));
}

// Overwrites four bytes in place (the size never changes, so views into `out` stay valid).
void SetI32At(std::string& out, size_t pos, int32_t v) {
  const auto u = static_cast<uint32_t>(v);
  for (size_t i = 0; i < 4; ++i) out[pos + i] = static_cast<char>((u >> (24 - 8 * i)) & 0xff);
}

void PutString(std::string& out, std::string_view s) {
  PutI16(out, static_cast<int16_t>(s.size()));
  out.append(s);
}

void PutNullableString(std::string& out, const std::string* s) {
  if (s == nullptr) {
    PutI16(out, -1);
    return;
  }
  PutString(out, *s);
}

// Reads a port at the reader's position and maps it in place.
void MapPortAt(std::string& payload, Reader& r, const PortMap& ports) {
  const size_t at = r.pos();
  const int32_t port = r.I32();
  if (!r.ok()) return;
  if (auto it = ports.find(port); it != ports.end()) SetI32At(payload, at, it->second);
}

}  // namespace

std::optional<RequestHeader> ReadRequestHeader(std::string_view payload) {
  Reader r(payload);
  RequestHeader h;
  h.api_key = r.I16();
  h.api_version = r.I16();
  h.correlation_id = r.I32();
  if (!r.ok()) return std::nullopt;
  if (h.api_key == kApiProduce) {
    // Produce: [v3+ TransactionalId] Acks ...; the client id comes first in the header.
    (void)r.String();  // client id (nullable)
    if (h.api_version >= 3) (void)r.String();
    const int16_t acks = r.I16();
    if (r.ok() && acks == 0) h.expects_answer = false;
  }
  return h;
}

std::optional<int32_t> ReadCorrelationId(std::string_view payload) {
  Reader r(payload);
  const int32_t id = r.I32();
  if (!r.ok()) return std::nullopt;
  return id;
}

bool RewriteMetadataAnswer(std::string& payload, int16_t version, const PortMap& ports) {
  if (version < 0 || version > 2) return false;
  std::string copy = payload;
  Reader r(copy, 4);  // past the correlation id
  const int32_t brokers = r.Count(10);
  std::vector<int32_t> ids;
  for (int32_t i = 0; i < brokers && r.ok(); ++i) {
    ids.push_back(r.I32());
    if (!r.String()) return false;  // host: never null
    MapPortAt(copy, r, ports);
    if (version >= 1) (void)r.String();  // rack (nullable)
  }
  if (!r.ok()) return false;
  if (version >= 1) {
    if (version >= 2) (void)r.String();  // cluster id (nullable)
    const size_t at = r.pos();
    const int32_t controller = r.I32();
    if (!r.ok()) return false;
    bool known = false;
    for (int32_t id : ids) known = known || id == controller;
    // The mock names no controller (0, and broker ids start at 1): the Admin API then waits
    // for one forever. Any broker will do, since the front answers CreateTopics everywhere.
    if (!known && !ids.empty()) SetI32At(copy, at, ids.front());
  }
  payload = std::move(copy);
  return true;
}

bool RewriteFindCoordinatorAnswer(std::string& payload, int16_t version, const PortMap& ports) {
  if (version < 0 || version > 2) return false;
  std::string copy = payload;
  Reader r(copy, 4);
  if (version >= 1) (void)r.I32();     // throttle time
  (void)r.I16();                       // error code
  if (version >= 1) (void)r.String();  // error message (nullable)
  (void)r.I32();                       // node id
  if (!r.String()) return false;       // host
  MapPortAt(copy, r, ports);
  if (!r.ok()) return false;
  payload = std::move(copy);
  return true;
}

bool AddCreateTopicsToApiVersions(std::string& payload, int16_t version) {
  if (version < 0 || version > 2) return false;
  Reader r(payload, 4);
  const int16_t error = r.I16();
  const size_t count_at = r.pos();
  const int32_t count = r.Count(6);
  if (!r.ok() || error != 0) return false;
  for (int32_t i = 0; i < count; ++i) {
    const int16_t key = r.I16();
    (void)r.I16();
    (void)r.I16();
    if (!r.ok()) return false;
    if (key == kApiCreateTopics) return true;  // already there
  }
  std::string entry;
  PutI16(entry, kApiCreateTopics);
  PutI16(entry, 0);
  PutI16(entry, kCreateTopicsMaxVersion);
  payload.insert(r.pos(), entry);
  SetI32At(payload, count_at, count + 1);
  return true;
}

std::optional<std::string> AnswerCreateTopics(std::string_view request,
                                              const CreateTopicFn& create) {
  Reader r(request);
  const int16_t key = r.I16();
  const int16_t version = r.I16();
  const int32_t correlation_id = r.I32();
  (void)r.String();  // client id
  if (!r.ok() || key != kApiCreateTopics || version < 0 || version > kCreateTopicsMaxVersion) {
    return std::nullopt;
  }
  std::vector<TopicToCreate> topics;
  const int32_t n = r.Count(12);
  for (int32_t i = 0; i < n && r.ok(); ++i) {
    TopicToCreate t;
    const auto name = r.String();
    if (!name) return std::nullopt;
    t.name = std::string(*name);
    t.partitions = r.I32();
    t.replication_factor = r.I16();
    const int32_t assignments = r.Count(8);
    for (int32_t a = 0; a < assignments && r.ok(); ++a) {
      (void)r.I32();  // partition index
      const int32_t replicas = r.Count(4);
      for (int32_t b = 0; b < replicas && r.ok(); ++b) (void)r.I32();
    }
    t.assigned_partitions = assignments;
    const int32_t configs = r.Count(4);
    for (int32_t c = 0; c < configs && r.ok(); ++c) {
      (void)r.String();  // name
      (void)r.String();  // value (nullable)
    }
    topics.push_back(std::move(t));
  }
  (void)r.I32();  // timeout
  bool validate_only = false;
  if (version >= 1) validate_only = r.I8() != 0;
  if (!r.ok()) return std::nullopt;

  std::string out;
  PutI32(out, correlation_id);
  if (version >= 2) PutI32(out, 0);  // throttle time
  PutI32(out, static_cast<int32_t>(topics.size()));
  for (TopicToCreate& t : topics) {
    t.validate_only = validate_only;
    const CreateOutcome outcome = create(t);
    PutString(out, t.name);
    PutI16(out, outcome.error);
    if (version >= 1) PutNullableString(out, outcome.error != 0 ? &outcome.message : nullptr);
  }
  return out;
}

}  // namespace snowcar::broker::internal
