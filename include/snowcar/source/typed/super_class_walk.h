// SPDX-License-Identifier: Apache-2.0
// The walk up a table's super-class chain in sys_db_object (incident -> task), one read per
// table: first the table by name, then each parent by the sys_id its child's super_class
// names, until a table has none. Typed records (typed_table.h) read sys_dictionary for every
// table of the chain, because an instance lists an inherited column under the parent's name
// only. No I/O here: the caller sends Query() and hands the answer to OnAnswer().
#pragma once

#include <boost/json/array.hpp>
#include <string>
#include <vector>

#include "snowcar/common/status.h"

namespace snowcar::source {

// Deeper than any chain on an instance (the CMDB's are the deepest, under ten): a longer one
// is a loop the cycle check missed or damaged data, and is refused rather than followed.
inline constexpr size_t kMaxSuperClassDepth = 16;

class SuperClassWalk {
 public:
  explicit SuperClassWalk(std::string table);

  // The encoded sysparm_query of the next sys_db_object read: "name=<table>" first, then
  // "sys_id=<parent's sys_id>". Only while !done().
  std::string Query() const;
  bool done() const { return done_; }

  // One sys_db_object answer (rows with name and super_class; super_class as a plain sys_id or
  // as {"value": sys_id, "link": ...}). FailedPrecondition, naming the tables, when the table
  // or a parent is not listed, when the chain loops back on itself, or when it is deeper than
  // kMaxSuperClassDepth.
  Status OnAnswer(const boost::json::array& rows);

  // The table first, then its parents in order; complete once done().
  const std::vector<std::string>& chain() const { return chain_; }

 private:
  std::string table_;
  std::vector<std::string> chain_;
  std::string parent_sys_id_;  // the sys_id the next read asks for; empty on the first read
  bool done_ = false;
};

}  // namespace snowcar::source
