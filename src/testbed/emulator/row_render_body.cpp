// SPDX-License-Identifier: Apache-2.0
// Request-side helpers: sysparm_display_value and JSON request bodies.
#include <boost/json.hpp>
#include <charconv>

#include "snowcar/common/text.h"
#include "snowcar/testbed/emulator/row_render.h"

namespace snowcar::emulator {
namespace {

std::string_view KindName(const boost::json::value& v) {
  switch (v.kind()) {
    case boost::json::kind::object:
      return "an object";
    case boost::json::kind::array:
      return "an array";
    case boost::json::kind::string:
      return "a string";
    case boost::json::kind::null:
      return "null";
    case boost::json::kind::bool_:
      return "a boolean";
    default:
      return "a number";
  }
}

}  // namespace

Result<DisplayValue> ParseDisplayValue(std::string_view text) {
  if (text.empty() || EqualsIgnoreCase(text, "false")) return DisplayValue::kFalse;
  if (EqualsIgnoreCase(text, "true")) return DisplayValue::kTrue;
  if (EqualsIgnoreCase(text, "all")) return DisplayValue::kAll;
  return Status::InvalidArgument("sysparm_display_value must be false, true or all, got '" +
                                 std::string(text.substr(0, 32)) + "'");
}

Result<Fields> ParseJsonFields(std::string_view body) {
  boost::json::parser parser;
  boost::system::error_code ec;
  const size_t used = parser.write(body.data(), body.size(), ec);
  if (ec) {
    if (body.find_first_not_of(" \t\r\n") == std::string_view::npos) {
      return Status::InvalidArgument("request body is empty; expected a JSON object of fields");
    }
    return Status::InvalidArgument("request body is not valid JSON (" + ec.message() + " at byte " +
                                   std::to_string(used) + ")");
  }
  boost::json::value doc = parser.release();
  if (!doc.is_object()) {
    return Status::InvalidArgument("request body must be a JSON object of fields, got " +
                                   std::string(KindName(doc)));
  }
  Fields fields;
  for (const auto& [key, value] : doc.as_object()) {
    std::string name(key);
    switch (value.kind()) {
      case boost::json::kind::string:
        fields.emplace_back(std::move(name), std::string(value.get_string()));
        break;
      case boost::json::kind::int64:
        fields.emplace_back(std::move(name), std::to_string(value.get_int64()));
        break;
      case boost::json::kind::uint64:
        fields.emplace_back(std::move(name), std::to_string(value.get_uint64()));
        break;
      case boost::json::kind::double_: {
        char buf[64];
        auto r = std::to_chars(buf, buf + sizeof(buf), value.get_double());
        fields.emplace_back(std::move(name), std::string(buf, r.ptr));
        break;
      }
      case boost::json::kind::bool_:
        fields.emplace_back(std::move(name), value.get_bool() ? "true" : "false");
        break;
      case boost::json::kind::null:
        fields.emplace_back(std::move(name), "");
        break;
      default:
        return Status::InvalidArgument("field '" + name.substr(0, 64) + "' is " +
                                       std::string(KindName(value)) +
                                       "; field values must be strings, numbers, booleans or null");
    }
  }
  return fields;
}

}  // namespace snowcar::emulator
