// SPDX-License-Identifier: Apache-2.0
#include "snowcar/common/url_encoding.h"

#include <algorithm>
#include <boost/url/encode.hpp>
#include <boost/url/pct_string_view.hpp>
#include <boost/url/rfc/unreserved_chars.hpp>
#include <cctype>

namespace snowcar {

std::string PercentEncode(std::string_view text) {
  return boost::urls::encode(text, boost::urls::unreserved_chars);
}

Result<std::string> PercentDecode(std::string_view text, bool plus_is_space) {
  const auto checked = boost::urls::make_pct_string_view(text);
  if (!checked) {
    // Boost.URL says that the text is malformed but not where: name the first bad escape.
    size_t at = 0;
    for (; at < text.size(); ++at) {
      if (text[at] != '%') continue;
      const auto hex = [&](size_t i) {
        return i < text.size() && std::isxdigit(static_cast<unsigned char>(text[i])) != 0;
      };
      if (!hex(at + 1) || !hex(at + 2)) break;
    }
    return Status::InvalidArgument(
        "malformed percent escape '" + std::string(text.substr(std::min(at, text.size()), 3)) +
        "' at offset " + std::to_string(at) + " in '" + std::string(text.substr(0, 200)) +
        "' (expected '%' and two hex digits)");
  }
  boost::urls::encoding_opts opts;
  opts.space_as_plus = plus_is_space;
  return checked->decode(opts);
}

}  // namespace snowcar
