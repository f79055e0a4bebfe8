// SPDX-License-Identifier: Apache-2.0
#include "snowcar/source/typed/super_class_walk.h"

#include <algorithm>
#include <boost/json/object.hpp>

namespace snowcar::source {
namespace {

// A field as text: a string, or a reference's {"value": ...}.
std::string TextOf(const boost::json::object& row, std::string_view name) {
  const boost::json::value* v = row.if_contains(name);
  if (v != nullptr && v->is_object()) v = v->get_object().if_contains("value");
  if (v == nullptr || !v->is_string()) return "";
  return std::string(v->get_string());
}

std::string Joined(const std::vector<std::string>& chain) {
  std::string out;
  for (const std::string& t : chain) {
    if (!out.empty()) out += " -> ";
    out += t;
  }
  return out;
}

}  // namespace

SuperClassWalk::SuperClassWalk(std::string table) : table_(std::move(table)) {}

std::string SuperClassWalk::Query() const {
  return parent_sys_id_.empty() ? "name=" + table_ : "sys_id=" + parent_sys_id_;
}

Status SuperClassWalk::OnAnswer(const boost::json::array& rows) {
  const boost::json::object* row = rows.empty() ? nullptr : rows.front().if_object();
  const std::string name = row == nullptr ? "" : TextOf(*row, "name");
  if (name.empty()) {
    if (chain_.empty()) {
      return Status::FailedPrecondition(
          "sys_db_object does not list the table " + table_ +
          ": no such table, or the integration user may not read its sys_db_object row");
    }
    return Status::FailedPrecondition("sys_db_object has no table with sys_id " + parent_sys_id_ +
                                      ", the super_class of " + chain_.back() + " (chain " +
                                      Joined(chain_) + ")");
  }
  if (std::find(chain_.begin(), chain_.end(), name) != chain_.end()) {
    return Status::FailedPrecondition("the super-class chain of " + table_ +
                                      " in sys_db_object loops: " + Joined(chain_) + " -> " + name);
  }
  if (chain_.size() >= kMaxSuperClassDepth) {
    return Status::FailedPrecondition("the super-class chain of " + table_ +
                                      " in sys_db_object is deeper than " +
                                      std::to_string(kMaxSuperClassDepth) +
                                      " tables: " + Joined(chain_) + " -> " + name + " -> ...");
  }
  chain_.push_back(name);
  parent_sys_id_ = TextOf(*row, "super_class");
  done_ = parent_sys_id_.empty();
  return Status::Ok();
}

}  // namespace snowcar::source
