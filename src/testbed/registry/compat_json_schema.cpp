// SPDX-License-Identifier: Apache-2.0
// The registry double's JSON Schema rule (compatibility.h). Far simpler than a real
// registry's, and documented as such in docs/testbed.md.
#include <boost/json.hpp>
#include <set>
#include <vector>

#include "compatibility.h"

namespace snowcar::registry {
namespace {

namespace json = boost::json;

// The "type" keyword as a set of names ({} when absent: any type).
std::set<std::string> Types(const json::object& o) {
  std::set<std::string> out;
  const json::value* t = o.if_contains("type");
  if (t == nullptr) return out;
  if (t->is_string()) out.insert(std::string(t->as_string()));
  if (t->is_array()) {
    for (const auto& x : t->as_array()) {
      if (x.is_string()) out.insert(std::string(x.as_string()));
    }
  }
  return out;
}

std::set<std::string> Required(const json::object& o) {
  std::set<std::string> out;
  if (const auto* r = o.if_contains("required"); r && r->is_array()) {
    for (const auto& x : r->as_array()) {
      if (x.is_string()) out.insert(std::string(x.as_string()));
    }
  }
  return out;
}

void Check(const json::object& reader, const json::object& writer, const std::string& path,
           std::vector<std::string>& problems) {
  const std::string where = path.empty() ? "(top level)" : path;
  const auto rt = Types(reader);
  const auto wt = Types(writer);
  if (!rt.empty()) {  // a reader without "type" accepts anything
    for (const auto& t : wt.empty() ? std::set<std::string>{"(any)"} : wt) {
      if (rt.count(t) == 0 && !(t == "integer" && rt.count("number") != 0)) {
        problems.push_back(where + ": type " + t + " is not accepted by the new schema");
      }
    }
  }
  const auto writer_required = Required(writer);
  for (const auto& name : Required(reader)) {
    if (writer_required.count(name) == 0) {
      problems.push_back(where + ": property " + name +
                         " is required now but was not before (data written before may lack it)");
    }
  }
  const json::object* rp = nullptr;
  const json::object* wp = nullptr;
  if (const auto* p = reader.if_contains("properties"); p && p->is_object()) rp = &p->as_object();
  if (const auto* p = writer.if_contains("properties"); p && p->is_object()) wp = &p->as_object();
  const auto* additional = reader.if_contains("additionalProperties");
  const bool closed = additional != nullptr && additional->is_bool() && !additional->as_bool();
  if (wp == nullptr) return;
  for (const auto& [name, wv] : *wp) {
    const std::string child = path.empty() ? std::string(name) : path + "." + std::string(name);
    const json::value* rv = rp != nullptr ? rp->if_contains(name) : nullptr;
    if (rv == nullptr) {
      if (closed) {
        problems.push_back(child + ": property removed while additionalProperties is false");
      }
      continue;
    }
    if (rv->is_object() && wv.is_object()) Check(rv->as_object(), wv.as_object(), child, problems);
  }
}

}  // namespace

std::string JsonSchemaIncompatibilities(const json::value& reader, const json::value& writer) {
  if (!reader.is_object() || !writer.is_object()) {
    return reader == writer ? "" : "(top level): boolean schemas differ";
  }
  std::vector<std::string> problems;
  Check(reader.as_object(), writer.as_object(), "", problems);
  std::string out;
  for (const auto& p : problems) out += (out.empty() ? "" : "\n") + p;
  return out;
}

}  // namespace snowcar::registry
