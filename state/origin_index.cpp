// SPDX-License-Identifier: Apache-2.0
#include "state/origin_index.h"

#include <functional>

#include "state/key_codec.h"

namespace snowcar::state::origin {
namespace {
constexpr uint8_t kValueFormat = 1;
constexpr size_t kTimeBytes = 8;
}  // namespace

void VersionKey(std::string* out, std::string_view instance, std::string_view table,
                std::string_view sys_id, uint32_t mod_count) {
  out->clear();
  out->push_back(kVersionSpace);
  codec::AppendPart(out, table);
  codec::AppendPart(out, sys_id);
  codec::AppendPart(out, instance);
  codec::AppendU32(out, mod_count);
}

std::string RowPrefix(std::string_view table, std::string_view sys_id) {
  std::string k(1, kVersionSpace);
  codec::AppendPart(&k, table);
  codec::AppendPart(&k, sys_id);
  return k;
}

std::string TimeKey(std::string_view version_key, int64_t written_at_ms) {
  std::string k(1, kTimeSpace);
  codec::AppendI64Ordered(&k, written_at_ms);
  k.append(version_key.substr(1));
  return k;
}

bool SplitTimeKey(std::string_view time_key, std::string* version_key, int64_t* written_at_ms) {
  if (time_key.size() < 1 + kTimeBytes || time_key[0] != kTimeSpace) return false;
  *written_at_ms = codec::ReadI64Ordered(time_key.data() + 1);
  version_key->assign(1, kVersionSpace);
  version_key->append(time_key.substr(1 + kTimeBytes));
  return true;
}

bool DecodeVersionKey(std::string_view key, OriginKey* out) {
  if (key.empty() || key[0] != kVersionSpace) return false;
  key.remove_prefix(1);
  std::string_view table, sys_id, instance;
  if (!codec::ConsumePart(&key, &table) || !codec::ConsumePart(&key, &sys_id) ||
      !codec::ConsumePart(&key, &instance) || key.size() != 4) {
    return false;
  }
  out->table = std::string(table);
  out->sys_id = std::string(sys_id);
  out->instance = std::string(instance);
  out->mod_count = codec::ReadU32(key.data());
  return true;
}

// value = u8 format(1) i64 written_at_ms u32 partition i64 offset P(topic) P(correlation)
//         P(request_id) P(operation) P(sys_updated_on)
std::string EncodeValue(const Origin& o) {
  std::string v(1, static_cast<char>(kValueFormat));
  codec::AppendI64Ordered(&v, o.written_at_ms);
  codec::AppendU32(&v, static_cast<uint32_t>(o.partition));
  codec::AppendI64Ordered(&v, o.offset);
  for (std::string_view part :
       {std::string_view(o.topic), std::string_view(o.correlation), std::string_view(o.request_id),
        std::string_view(o.operation), std::string_view(o.sys_updated_on)}) {
    codec::AppendPart(&v, part);
  }
  return v;
}

bool DecodeValue(std::string_view value, Origin* out) {
  constexpr size_t kFixed = 1 + 8 + 4 + 8;
  if (value.size() < kFixed || static_cast<uint8_t>(value[0]) != kValueFormat) return false;
  out->written_at_ms = codec::ReadI64Ordered(value.data() + 1);
  out->partition = static_cast<int32_t>(codec::ReadU32(value.data() + 9));
  out->offset = codec::ReadI64Ordered(value.data() + 13);
  value.remove_prefix(kFixed);
  std::string* parts[] = {&out->topic, &out->correlation, &out->request_id, &out->operation,
                          &out->sys_updated_on};
  for (std::string* part : parts) {
    std::string_view p;
    if (!codec::ConsumePart(&value, &p)) return false;
    part->assign(p);
  }
  return value.empty();
}

uint64_t HashIndex::Hash(std::string_view version_key) {
  return std::hash<std::string_view>{}(version_key);
}

void HashIndex::Remove(std::string_view version_key) {
  auto it = counts_.find(Hash(version_key));
  if (it == counts_.end()) return;
  if (--it->second == 0) counts_.erase(it);
}

}  // namespace snowcar::state::origin
