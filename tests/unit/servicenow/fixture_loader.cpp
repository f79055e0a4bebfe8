// SPDX-License-Identifier: Apache-2.0
#include "fixture_loader.h"

#include <algorithm>
#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace snowcar::servicenow::testing {
namespace {

Method MethodFrom(std::string_view name) {
  if (name == "POST") return Method::kPost;
  if (name == "PATCH") return Method::kPatch;
  if (name == "PUT") return Method::kPut;
  if (name == "DELETE") return Method::kDelete;
  return Method::kGet;
}

}  // namespace

std::string FixtureDir() { return SNOWCAR_FIXTURES_DIR "/servicenow"; }

Fixture LoadFixture(const std::string& file) {
  std::ifstream in(FixtureDir() + "/" + file);
  if (!in) throw std::runtime_error("cannot open fixture " + file);
  std::stringstream text;
  text << in.rdbuf();
  auto root = boost::json::parse(text.str()).as_object();
  Fixture f;
  f.file = file;
  const auto& req = root.at("request").as_object();
  f.method = MethodFrom(req.at("method").as_string());
  f.url = std::string(req.at("url").as_string());
  const auto& resp = root.at("response").as_object();
  if (resp.at("status").is_int64()) {
    f.status = static_cast<int>(resp.at("status").as_int64());
    f.response.status = *f.status;
  }
  for (const auto& [name, value] : resp.at("headers").as_object()) {
    if (value.is_array()) {
      for (const auto& v : value.as_array()) {
        f.response.headers.emplace_back(std::string(name), std::string(v.as_string()));
      }
    } else {
      f.response.headers.emplace_back(std::string(name), std::string(value.as_string()));
    }
  }
  const auto& body = resp.at("body");
  if (body.is_string()) {
    f.response.body = std::string(body.as_string());
  } else if (!body.is_null()) {
    f.response.body = boost::json::serialize(body);
  }
  return f;
}

std::vector<Fixture> LoadAllFixtures() {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(FixtureDir())) {
    if (entry.path().extension() == ".json") names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  std::vector<Fixture> out;
  out.reserve(names.size());
  for (const auto& n : names) out.push_back(LoadFixture(n));
  return out;
}

}  // namespace snowcar::servicenow::testing
