// SPDX-License-Identifier: Apache-2.0
// The credentials the client sends, and the files they were read from.
//
// A Kubernetes Secret mounted as files is updated in place when the Secret changes, so a
// password corrected there has to reach the client without a restart. The client reads the
// files again after the instance refused its credentials (a final 401, or the token endpoint
// refusing them: docs/outcomes.md, "pause"), once before each probe of the instance gate, so
// a wrong file is read at the gate's growing pace and never in a tight loop.
//
// Thread-safe: lanes and pollers send concurrently, and every attempt reads the credentials.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "snowcar/servicenow/client_options.h"

namespace snowcar::servicenow {

struct Credentials {
  std::string username;       // snow.auth.username
  std::string password;       // snow.auth.password (secret)
  std::string client_id;      // snow.oauth.client.id
  std::string client_secret;  // snow.oauth.client.secret (secret)
};

// The credentials of `options`.
Credentials CredentialsOf(const ClientOptions& options);
// `options` with `credentials` in place of its own (for the OAuth forms).
ClientOptions WithCredentials(ClientOptions options, const Credentials& credentials);

class CredentialFiles {
 public:
  // `files`: configuration key -> the file its value was read from
  // (ClientOptions::credential_files); keys other than the four above are ignored.
  CredentialFiles(Credentials initial, const std::map<std::string, std::string>& files);

  Credentials Current() const;
  bool HasFiles() const { return !files_.empty(); }

  // Reads every file again (config::ReadValueFromFile: bounded, checked as its key's value,
  // registered with redact:: first). A value that reads becomes current; one that does not
  // keeps the value in use and is logged as snow.credentials.reread_failed (a Secret may be
  // half-way through an update). Each file read is logged as snow.credentials.reread with
  // the key, the file and whether the value changed, never the value. True when a value
  // changed.
  bool Reread();
  // Times Reread ran.
  int64_t rereads() const;

 private:
  std::mutex reread_mu_;  // one Reread at a time
  mutable std::mutex mu_;
  Credentials current_;  // GUARDED_BY(mu_)
  int64_t rereads_ = 0;  // GUARDED_BY(mu_)
  const std::map<std::string, std::string> files_;
};

}  // namespace snowcar::servicenow
