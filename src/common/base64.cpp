// SPDX-License-Identifier: Apache-2.0
// The coding itself is Boost's (Serialization's dataflow iterators, header-only); what is left
// here is what clients send that strict base64 does not allow: optional padding, whitespace,
// the URL-safe alphabet.
#include "snowcar/common/base64.h"

#include <boost/archive/iterators/base64_from_binary.hpp>
#include <boost/archive/iterators/binary_from_base64.hpp>
#include <boost/archive/iterators/dataflow_exception.hpp>
#include <boost/archive/iterators/transform_width.hpp>

namespace snowcar {
namespace {
namespace iterators = boost::archive::iterators;
}  // namespace

std::string Base64Encode(std::string_view data) {
  using Encode = iterators::base64_from_binary<iterators::transform_width<const char*, 6, 8>>;
  std::string out(Encode(data.data()), Encode(data.data() + data.size()));
  out.append((3 - data.size() % 3) % 3, '=');
  return out;
}

std::optional<std::string> Base64Decode(std::string_view text) {
  // The standard alphabet only, whole groups of four: padding and whitespace dropped, the
  // URL-safe characters mapped, and a short last group filled with 'A' (zero bits) whose
  // bytes are dropped again after decoding.
  std::string groups;
  groups.reserve(text.size() + 3);
  bool padding = false;
  for (const char c : text) {
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
    if (c == '=') {
      padding = true;
      continue;
    }
    if (padding) return std::nullopt;  // data after padding
    groups += c == '-' ? '+' : c == '_' ? '/' : c;
  }
  if (groups.size() % 4 == 1) return std::nullopt;  // a lone trailing character
  const size_t filled = (4 - groups.size() % 4) % 4;
  groups.append(filled, 'A');
  using Decode = iterators::transform_width<iterators::binary_from_base64<const char*>, 8, 6>;
  try {
    std::string out(Decode(groups.data()), Decode(groups.data() + groups.size()));
    out.resize(out.size() - filled);
    return out;
  } catch (const iterators::dataflow_exception&) {
    return std::nullopt;  // a character outside the alphabet
  }
}

}  // namespace snowcar
