// SPDX-License-Identifier: Apache-2.0
#include "testbed/emulator/auth_check.h"

#include "snowcar/common/base64.h"

namespace snowcar::emulator {
namespace {

bool StartsWithIgnoreCase(std::string_view text, std::string_view prefix) {
  return text.size() >= prefix.size() && EqualsIgnoreCase(text.substr(0, prefix.size()), prefix);
}

}  // namespace

AuthResult Authenticate(const ServerContext& ctx, const EmulatorRequest& request) {
  AuthResult result;
  const std::string* header = request.FindHeader("Authorization");
  if (header == nullptr || header->empty()) return result;
  const std::string_view value = *header;
  if (StartsWithIgnoreCase(value, "Basic ")) {
    result.kind = "basic";
    const auto decoded = Base64Decode(value.substr(6));
    if (!decoded) return result;
    const size_t colon = decoded->find(':');
    if (colon == std::string::npos) return result;
    if (decoded->substr(0, colon) == ctx.options.user &&
        decoded->substr(colon + 1) == ctx.options.password) {
      result.ok = true;
      result.user = ctx.options.user;
    }
    return result;
  }
  if (StartsWithIgnoreCase(value, "Bearer ")) {
    result.kind = "bearer";
    if (auto user = ctx.oauth.UserOf(value.substr(7))) {
      result.ok = true;
      result.user = *user;
    }
    return result;
  }
  result.kind = "other";
  return result;
}

}  // namespace snowcar::emulator
