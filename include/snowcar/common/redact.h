// Keeping secrets out of logs, error messages and socket answers.
//
// Two mechanisms, both applied by the logger and by the socket's error path:
//  1. Known secret values (passwords, client secrets, issued tokens) are registered once and
//     replaced by "[redacted]" wherever they appear, including base64 `user:password` forms.
//  2. Shapes that carry secrets are masked even when the value was never registered:
//     "Bearer x" / "Basic x" become "Bearer ***", and JSON or form fields whose name contains
//     password, secret, token, authorization or credential get the value "***".
#pragma once

#include <string>
#include <string_view>

namespace snowcar::redact {

inline constexpr std::string_view kRedacted = "[redacted]";

// Registers a secret value; thread-safe. Values shorter than 4 characters are ignored (they
// would mask ordinary text and are not worth protecting this way).
void RegisterSecret(std::string_view value);

// Returns `text` with every registered secret and every secret-carrying shape masked.
std::string Mask(std::string_view text);

// True when a field or header named `name` carries a secret (case-insensitive match on
// password, secret, token, authorization, credential, cookie).
bool IsSecretName(std::string_view name);

// Forgets registered secrets (tests only).
void ClearForTest();

}  // namespace snowcar::redact
