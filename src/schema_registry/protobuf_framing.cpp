// SPDX-License-Identifier: Apache-2.0
#include "snowcar/schema_registry/protobuf_framing.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>

#include "snowcar/schema_registry/wire_format.h"

namespace snowcar::schema_registry {
namespace {

namespace gp = google::protobuf;

void AppendZigZag(int32_t v, std::string& out) {
  uint8_t buf[5];  // a 32-bit varint takes at most 5 bytes
  const uint8_t* end = gp::io::CodedOutputStream::WriteVarint32ToArray(
      gp::internal::WireFormatLite::ZigZagEncode32(v), buf);
  out.append(reinterpret_cast<const char*>(buf), static_cast<size_t>(end - buf));
}

}  // namespace

void AppendMessageIndexes(const std::vector<int>& path, std::string& out) {
  if (path.empty() || (path.size() == 1 && path[0] == 0)) {
    out.push_back('\0');
    return;
  }
  AppendZigZag(static_cast<int32_t>(path.size()), out);
  for (int index : path) AppendZigZag(index, out);
}

std::string FrameProtobuf(int32_t schema_id, std::string_view payload) {
  std::string out;
  out.reserve(kWireHeaderSize + 1 + payload.size());
  AppendWireHeader(schema_id, out);
  out.push_back('\0');
  out.append(payload);
  return out;
}

Result<std::vector<int>> ReadMessageIndexes(std::string_view& payload) {
  gp::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(payload.data()),
                              static_cast<int>(payload.size()));
  const auto next = [&in](int32_t& v) {
    uint32_t raw = 0;
    if (!in.ReadVarint32(&raw)) return false;
    v = gp::internal::WireFormatLite::ZigZagDecode32(raw);
    return true;
  };
  int32_t count = 0;
  if (!next(count)) {
    return Status::InvalidArgument(
        "the Protobuf record has no message-index list after the schema id (a 0 byte for the "
        "schema's first message)");
  }
  if (count < 0 || count > kMaxMessageIndexes) {
    return Status::InvalidArgument("the Protobuf record's message-index list has a count of " +
                                   std::to_string(count) + " (0.." +
                                   std::to_string(kMaxMessageIndexes) + " expected)");
  }
  std::vector<int> path;
  if (count == 0) path.push_back(0);
  for (int32_t i = 0; i < count; ++i) {
    int32_t index = 0;
    if (!next(index)) {
      return Status::InvalidArgument("the Protobuf record's message-index list is cut short (" +
                                     std::to_string(i) + " of " + std::to_string(count) +
                                     " indexes)");
    }
    if (index < 0) {
      return Status::InvalidArgument("the Protobuf record's message-index list holds " +
                                     std::to_string(index) + ", a negative index");
    }
    path.push_back(index);
  }
  payload.remove_prefix(static_cast<size_t>(in.CurrentPosition()));
  return path;
}

}  // namespace snowcar::schema_registry
