// SPDX-License-Identifier: Apache-2.0
#include "snowcar/servicenow/credential_files.h"

#include <utility>

#include "snowcar/common/log.h"
#include "snowcar/common/redact.h"
#include "snowcar/config/config.h"

namespace snowcar::servicenow {
namespace {

// The member of `c` a configuration key sets, or nullptr for any other key.
std::string* Member(Credentials& c, std::string_view key) {
  if (key == "snow.auth.username") return &c.username;
  if (key == "snow.auth.password") return &c.password;
  if (key == "snow.oauth.client.id") return &c.client_id;
  if (key == "snow.oauth.client.secret") return &c.client_secret;
  return nullptr;
}

std::map<std::string, std::string> KnownOnly(const std::map<std::string, std::string>& files) {
  std::map<std::string, std::string> out;
  Credentials probe;
  for (const auto& [key, path] : files) {
    if (Member(probe, key) != nullptr && !path.empty()) out.emplace(key, path);
  }
  return out;
}

}  // namespace

Credentials CredentialsOf(const ClientOptions& o) {
  return Credentials{o.username, o.password, o.client_id, o.client_secret};
}

ClientOptions WithCredentials(ClientOptions options, const Credentials& c) {
  options.username = c.username;
  options.password = c.password;
  options.client_id = c.client_id;
  options.client_secret = c.client_secret;
  return options;
}

CredentialFiles::CredentialFiles(Credentials initial,
                                 const std::map<std::string, std::string>& files)
    : current_(std::move(initial)), files_(KnownOnly(files)) {}

Credentials CredentialFiles::Current() const {
  std::lock_guard lock(mu_);
  return current_;
}

int64_t CredentialFiles::rereads() const {
  std::lock_guard lock(mu_);
  return rereads_;
}

bool CredentialFiles::Reread() {
  std::lock_guard one_at_a_time(reread_mu_);
  // Read outside mu_: a slow file system must not hold up every attempt.
  Credentials next = Current();
  bool changed = false;
  for (const auto& [key, path] : files_) {
    auto value = config::ReadValueFromFile(key, path);
    if (!value.ok()) {
      SNOWCAR_LOG(kWarn, "snow.credentials.reread_failed",
                  {{"key", key},
                   {"file", path},
                   {"error", redact::Mask(value.status().message())},
                   {"note", "the value in use is kept"}});
      continue;
    }
    std::string& slot = *Member(next, key);
    const bool differs = *value != slot;
    SNOWCAR_LOG(kInfo, "snow.credentials.reread",
                {{"key", key}, {"file", path}, {"changed", differs}});
    if (differs) {
      slot = std::move(value).value();
      changed = true;
    }
  }
  if (changed && !next.username.empty() && !next.password.empty()) {
    // What a Basic Authorization header carries (RegisterSecret masks the base64 form of a
    // value, not of user:password).
    redact::RegisterSecret(next.username + ":" + next.password);
  }
  std::lock_guard lock(mu_);
  ++rereads_;
  if (changed) current_ = std::move(next);
  return changed;
}

}  // namespace snowcar::servicenow
