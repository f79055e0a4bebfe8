// SPDX-License-Identifier: Apache-2.0
#include "idset_changelog.h"

#include <boost/algorithm/hex.hpp>
#include <boost/json.hpp>
#include <charconv>

namespace snowcar::source {
namespace {

namespace json = boost::json;

constexpr size_t kBinaryIdBytes = 16;
constexpr std::string_view kChunkMagic = "snowcar-idset 1";

Status Bad(std::string_view what, const std::string& why) {
  return Status::DataLoss(std::string(what) + ": " + why);
}

bool IsHexId(std::string_view id) {
  return id.size() == 2 * kBinaryIdBytes && std::all_of(id.begin(), id.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

std::string Generation(const IdSetManifest& m) {
  return std::to_string(m.generation) + "-" + m.nonce;
}

// The chunk's first line: names the generation and the index, so a value read under the
// wrong key (or a key reused by something else) is refused instead of restored.
std::string ChunkHeader(const IdSetManifest& m, int64_t index) {
  // Appended, not chained with operator+: g++ 12's -Warray-bounds misreads the inlined moves
  // of that chain (a known false positive) and would warn on every build.
  std::string header(kChunkMagic);
  header.append(" ").append(Generation(m)).append(" ").append(std::to_string(index));
  return header.append("\n");
}

}  // namespace

std::string EncodeIdSetManifest(const IdSetManifest& m) {
  return json::serialize(json::object{{"generation", m.generation},
                                      {"nonce", m.nonce},
                                      {"chunks", m.chunks},
                                      {"ids", m.ids},
                                      {"at_sweep", m.at_sweep},
                                      {"written_at_ms", m.written_at_ms}});
}

Result<IdSetManifest> DecodeIdSetManifest(std::string_view text) {
  constexpr std::string_view kWhat = "id set manifest";
  boost::system::error_code ec;
  json::value parsed = json::parse(text, ec);
  if (ec || !parsed.is_object()) return Bad(kWhat, "not a JSON object");
  const json::object& o = parsed.as_object();
  IdSetManifest m;
  auto integer = [&](std::string_view name, auto& out) {
    const json::value* v = o.if_contains(name);
    if (v == nullptr || !v->is_number()) return false;
    boost::system::error_code number_ec;
    out = v->to_number<std::remove_reference_t<decltype(out)>>(number_ec);
    return !number_ec;
  };
  if (!integer("generation", m.generation) || !integer("chunks", m.chunks) ||
      !integer("ids", m.ids) || !integer("at_sweep", m.at_sweep) ||
      !integer("written_at_ms", m.written_at_ms)) {
    return Bad(kWhat, "a count is missing or not a whole number");
  }
  const json::value* nonce = o.if_contains("nonce");
  if (nonce == nullptr || !nonce->is_string()) return Bad(kWhat, "'nonce' is not a string");
  m.nonce = std::string(nonce->as_string());
  if (m.chunks < 0) return Bad(kWhat, "negative chunk count");
  if (m.nonce.find('/') != std::string::npos) return Bad(kWhat, "'nonce' holds '/'");
  return m;
}

std::string IdSetChunkPrefix(std::string_view alias, const IdSetManifest& manifest) {
  return std::string(alias) + "/idset/" + Generation(manifest) + "/";
}

std::string IdSetChunkKey(std::string_view alias, const IdSetManifest& manifest, int64_t index) {
  return IdSetChunkPrefix(alias, manifest) + std::to_string(index);
}

std::optional<int64_t> IdSetChunkIndex(std::string_view key, std::string_view alias,
                                       const IdSetManifest& manifest) {
  const std::string prefix = IdSetChunkPrefix(alias, manifest);
  if (!key.starts_with(prefix)) return std::nullopt;
  const std::string_view rest = key.substr(prefix.size());
  int64_t index = -1;
  const auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), index);
  if (ec != std::errc() || end != rest.data() + rest.size() || index < 0) return std::nullopt;
  return index;
}

Result<std::string> EncodeIdSetChunk(const IdSetManifest& manifest, int64_t index,
                                     const std::vector<std::string>& ids) {
  std::string out = ChunkHeader(manifest, index);
  out.reserve(out.size() + ids.size() * kBinaryIdBytes);
  for (const std::string& id : ids) {
    if (!IsHexId(id)) {
      return Status::InvalidArgument("id set chunk: '" + id.substr(0, 64) +
                                     "' is not a 32-hex sys_id");
    }
    boost::algorithm::unhex(id.begin(), id.end(), std::back_inserter(out));
  }
  return out;
}

Result<std::vector<std::string>> DecodeIdSetChunk(std::string_view value,
                                                  const IdSetManifest& manifest, int64_t index) {
  const std::string what =
      "id set chunk " + std::to_string(index) + " of generation " + Generation(manifest);
  const std::string header = ChunkHeader(manifest, index);
  if (!value.starts_with(header)) return Bad(what, "its header names another chunk");
  const std::string_view body = value.substr(header.size());
  if (body.size() % kBinaryIdBytes != 0) {
    return Bad(what, std::to_string(body.size()) + " bytes of ids, not a multiple of 16");
  }
  std::vector<std::string> ids;
  ids.reserve(body.size() / kBinaryIdBytes);
  for (size_t at = 0; at < body.size(); at += kBinaryIdBytes) {
    std::string hex;
    hex.reserve(2 * kBinaryIdBytes);
    boost::algorithm::hex_lower(body.begin() + static_cast<std::ptrdiff_t>(at),
                                body.begin() + static_cast<std::ptrdiff_t>(at + kBinaryIdBytes),
                                std::back_inserter(hex));
    ids.push_back(std::move(hex));
  }
  return ids;
}

}  // namespace snowcar::source
