// SPDX-License-Identifier: Apache-2.0
// What names an instance in the state store (cursors, dedup and origin keys): the host of
// snow.url, so a proxy or port change in front of the instance keeps its state.
#pragma once

#include <string>
#include <string_view>

namespace snowcar {

// The host of an http(s) URL, lower-case, without user info or port ("" without a scheme).
std::string UrlHost(std::string_view url);

}  // namespace snowcar
