// SPDX-License-Identifier: Apache-2.0
// Keeping secrets out of logs, error messages and socket answers.
//
// Two mechanisms, both applied by the logger and by the socket's error path:
//  1. Known secret values (passwords, client secrets, issued tokens) are registered once and
//     replaced by "[redacted]" wherever they appear, including base64 `user:password` forms.
//  2. Shapes that carry secrets are masked even when the value was never registered:
//     "Bearer x" / "Basic x" become "Bearer ***", and JSON or form fields whose name contains
//     password, secret, token, authorization or credential get the value "***"; the
//     user-info of a URL loses its password ("https://user:***@host"), or all of it when it
//     holds no ':' ("https://***@host": a token alone).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace snowcar::redact {

inline constexpr std::string_view kRedacted = "[redacted]";

// Registers a secret value; thread-safe. Values shorter than 4 characters are ignored (they
// would mask ordinary text and are not worth protecting this way).
void RegisterSecret(std::string_view value);

// Registers the password in the user-info of every URL in `text` (the whole user-info when it
// holds no ':'), so it stays masked where it appears outside a URL (e.g. base64 in a header).
void RegisterUrlSecrets(std::string_view text);

// Returns `text` with every registered secret and every secret-carrying shape masked.
std::string Mask(std::string_view text);

// True when a field or header named `name` carries a secret: a case-insensitive match on
// password, secret, token, authorization, credential, cookie, or a Kafka client property that
// IsSensitiveKafkaProperty names.
bool IsSecretName(std::string_view name);

// True when `name` is, or ends with `.` and, a Kafka client property whose value is secret:
// every property librdkafka marks sensitive (sasl.username, sasl.password, ssl.key.pem,
// ssl.key.location, ssl.ca.pem, ...; librdkafka 2.0.2 has no call that lists them, so the
// list is kept here and a unit test holds it against the installed library), and the Java
// client's secret-carrying keys that librdkafka refuses (sasl.jaas.config, ...), whose values
// must not reach a message either. Case-insensitive; `kafka.sasl.username` matches too.
bool IsSensitiveKafkaProperty(std::string_view name);

// The properties IsSensitiveKafkaProperty knows, without a prefix.
const std::vector<std::string_view>& SensitiveKafkaProperties();

// Forgets registered secrets (tests only).
void ClearForTest();

}  // namespace snowcar::redact
