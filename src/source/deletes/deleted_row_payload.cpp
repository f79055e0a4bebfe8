// SPDX-License-Identifier: Apache-2.0
// sys_audit_delete payloads (deleted_row_payload.h), read with Boost.PropertyTree's XML
// parser: entities, CDATA and attributes are its job, not a hand-written scanner's.
#include "deleted_row_payload.h"

#include <algorithm>
#include <boost/property_tree/ptree.hpp>
#include <boost/property_tree/xml_parser.hpp>
#include <sstream>
#include <string>

namespace snowcar::source {
namespace {

namespace pt = boost::property_tree;

constexpr std::string_view kAttributes = "<xmlattr>";
constexpr std::string_view kComment = "<xmlcomment>";

// The row's element: the root itself, or a child of the root (record_update's).
const pt::ptree* FindRowElement(const pt::ptree& doc, std::string_view table) {
  for (const auto& [name, root] : doc) {
    if (name == table) return &root;
    for (const auto& [child_name, child] : root) {
      if (child_name == table) return &child;
    }
  }
  return nullptr;
}

}  // namespace

Result<boost::json::object> ParseDeletedRowPayload(std::string_view payload, std::string_view table,
                                                   const std::vector<std::string>& fields) {
  pt::ptree doc;
  try {
    std::istringstream in{std::string(payload)};
    pt::read_xml(in, doc, pt::xml_parser::no_comments);
  } catch (const pt::xml_parser_error& e) {
    return Status::InvalidArgument("sys_audit_delete payload is not XML (" + e.message() +
                                   " at line " + std::to_string(e.line()) + ")");
  }
  const pt::ptree* row = FindRowElement(doc, table);
  if (row == nullptr) {
    return Status::InvalidArgument("sys_audit_delete payload has no <" + std::string(table) +
                                   "> element");
  }
  boost::json::object out;
  for (const auto& [name, field] : *row) {
    if (name == kAttributes || name == kComment) continue;
    if (!fields.empty() && std::find(fields.begin(), fields.end(), name) == fields.end()) continue;
    out[name] = field.data();
  }
  return out;
}

}  // namespace snowcar::source
