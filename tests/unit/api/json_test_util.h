// SPDX-License-Identifier: Apache-2.0
// Parsing answers in tests: a failed parse fails the test instead of throwing.
#pragma once

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>
#include <string>

namespace snowcar::api::testing {

inline boost::json::value ParseJson(const std::string& body) {
  boost::system::error_code ec;
  boost::json::value v = boost::json::parse(body, ec);
  EXPECT_FALSE(ec) << "not JSON: " << body;
  return v;
}

// obj["error"]["message"] as a string, or "" when the shape differs.
inline std::string ErrorMessage(const std::string& body) {
  const boost::json::value v = ParseJson(body);
  if (!v.is_object()) return {};
  const auto* e = v.as_object().if_contains("error");
  if (e == nullptr || !e->is_object()) return {};
  const auto* m = e->as_object().if_contains("message");
  return m != nullptr && m->is_string() ? std::string(m->as_string()) : std::string();
}

}  // namespace snowcar::api::testing
