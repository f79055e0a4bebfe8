// SPDX-License-Identifier: Apache-2.0
// Row: one buffer of offsets and characters; sys_id helpers.
#include <cstring>
#include <random>

#include "snowcar/testbed/emulator/table_store.h"
#include "snowcar/testbed/emulator/table_store_schema.h"

namespace snowcar::emulator {
namespace {

template <typename S>
std::string RowBuffer(const std::vector<S>& values) {
  size_t chars = 0;
  for (const auto& v : values) chars += v.size();
  const size_t header = (values.size() + 1) * sizeof(uint32_t);
  std::string buf(header + chars, '\0');
  uint32_t offset = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    std::memcpy(buf.data() + i * sizeof(uint32_t), &offset, sizeof(offset));
    std::memcpy(buf.data() + header + offset, values[i].data(), values[i].size());
    offset += static_cast<uint32_t>(values[i].size());
  }
  std::memcpy(buf.data() + values.size() * sizeof(uint32_t), &offset, sizeof(offset));
  return buf;
}

}  // namespace

std::shared_ptr<const Row> Row::Make(const std::vector<std::string_view>& values) {
  return std::make_shared<const Row>(Private{}, values.size(), RowBuffer(values));
}

std::shared_ptr<const Row> Row::Make(const std::vector<std::string>& values) {
  return std::make_shared<const Row>(Private{}, values.size(), RowBuffer(values));
}

std::vector<std::string> Row::Values() const {
  std::vector<std::string> out;
  out.reserve(count_);
  for (size_t i = 0; i < count_; ++i) out.emplace_back(Get(i));
  return out;
}

bool IsSysId(std::string_view text) {
  if (text.size() != 32) return false;
  for (char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

std::string NewSysId() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  static constexpr char kHex[] = "0123456789abcdef";
  std::string id(32, '0');
  uint64_t bits = 0;
  for (size_t i = 0; i < 32; ++i) {
    if (i % 16 == 0) bits = rng();
    id[i] = kHex[bits & 0xf];
    bits >>= 4;
  }
  return id;
}

}  // namespace snowcar::emulator
