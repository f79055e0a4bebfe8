// SPDX-License-Identifier: Apache-2.0
#include "testbed/emulator/gzip.h"

#include <zlib.h>

namespace snowcar::emulator {

std::optional<std::string> GzipCompress(std::string_view data) {
  z_stream zs{};
  // 15 window bits + 16: a gzip header and trailer instead of zlib's.
  if (deflateInit2(&zs, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    return std::nullopt;
  }
  std::string out;
  out.resize(deflateBound(&zs, static_cast<uLong>(data.size())));
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&zs, Z_FINISH);
  const size_t produced = zs.total_out;
  deflateEnd(&zs);
  if (rc != Z_STREAM_END) return std::nullopt;
  out.resize(produced);
  return out;
}

void MaybeGzip(const EmulatorRequest& request, EmulatorResponse& response) {
  constexpr size_t kMinBytes = 256;
  if (response.body.size() < kMinBytes || response.status == 204) return;
  const std::string* accept = request.FindHeader("Accept-Encoding");
  if (accept == nullptr || accept->find("gzip") == std::string::npos) return;
  auto compressed = GzipCompress(response.body);
  if (!compressed) return;
  response.body = std::move(*compressed);
  response.SetHeader("Content-Encoding", "gzip");
}

}  // namespace snowcar::emulator
