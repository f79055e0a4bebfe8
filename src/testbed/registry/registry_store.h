// SPDX-License-Identifier: Apache-2.0
// The registry double's memory: schemas by id, subjects with their versions, compatibility
// levels. Every method is one REST operation's logic, answering with a status, the
// registry's error code and a JSON body, so registry_routes.cpp only parses and routes.
// Thread-safe (one mutex: the double serves tests, not load).
#pragma once

#include <boost/json/value.hpp>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "snowcar/protobuf/proto_schema.h"

namespace snowcar::registry {

struct Answer {
  int status = 200;
  boost::json::value body;
};

// {"error_code": code, "message": message} with HTTP status `status`.
Answer ErrorAnswer(int status, int code, std::string_view message);

class RegistryStore {
 public:
  // POST /subjects/{s}/versions
  Answer Register(const std::string& subject, const boost::json::value& request);
  // POST /subjects/{s}: the version of `request`'s schema under the subject.
  Answer Lookup(const std::string& subject, const boost::json::value& request);
  // GET /subjects
  Answer Subjects();
  // GET /subjects/{s}/versions
  Answer Versions(const std::string& subject);
  // GET /subjects/{s}/versions/{v} ("latest" or a number)
  Answer Version(const std::string& subject, const std::string& version);
  // DELETE /subjects/{s}
  Answer DeleteSubject(const std::string& subject);
  // GET /schemas/ids/{id}
  Answer SchemaById(int64_t id);
  // POST /compatibility/subjects/{s}/versions/{v}
  Answer Compatibility(const std::string& subject, const std::string& version,
                       const boost::json::value& request, bool verbose);
  // GET /config[/{s}], PUT /config[/{s}] (`subject` empty: the global level)
  Answer GetConfig(const std::string& subject, bool default_to_global);
  Answer PutConfig(const std::string& subject, const boost::json::value& request);

 private:
  struct Schema {
    std::string type;                                    // "AVRO" | "JSON" | "PROTOBUF"
    std::string text;                                    // as registered
    boost::json::value parsed;                           // AVRO, JSON
    std::shared_ptr<const protobuf::ProtoSchema> proto;  // PROTOBUF
    std::string canonical;  // type + compact JSON (.proto as libprotobuf renders it)
  };
  struct SubjectVersions {
    std::vector<int64_t> ids;  // version v is ids[v - 1]
  };

  // Validates the request's schema: nullopt and `error` set when it is invalid (42201).
  std::optional<Schema> ParseRequest(const boost::json::value& request, Answer& error) const;
  std::string LevelOf(const std::string& subject) const;
  // Incompatibilities of `candidate` against the versions the level compares with.
  std::string Incompatibilities(const std::string& level, const Schema& candidate,
                                const std::vector<int64_t>& ids) const;
  boost::json::object VersionBody(const std::string& subject, size_t version) const;

  mutable std::mutex mu_;
  std::map<int64_t, Schema> schemas_;
  std::map<std::string, SubjectVersions> subjects_;
  std::string global_level_ = "BACKWARD";
  std::map<std::string, std::string> subject_levels_;
};

}  // namespace snowcar::registry
