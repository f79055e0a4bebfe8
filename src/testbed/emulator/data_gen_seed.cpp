// SPDX-License-Identifier: Apache-2.0
// Seed files: {"<table>":[{row},...],...} loaded into a TableStore.
#include <boost/json.hpp>
#include <charconv>

#include "snowcar/common/file_read.h"
#include "snowcar/testbed/emulator/data_gen.h"

namespace snowcar::emulator {
namespace {

std::string LineColumn(std::string_view text, size_t offset) {
  size_t line = 1, col = 1;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(col);
}

Result<std::string> ScalarText(const boost::json::value& v) {
  switch (v.kind()) {
    case boost::json::kind::string:
      return std::string(v.get_string());
    case boost::json::kind::int64:
      return std::to_string(v.get_int64());
    case boost::json::kind::uint64:
      return std::to_string(v.get_uint64());
    case boost::json::kind::double_: {
      char buf[64];
      auto r = std::to_chars(buf, buf + sizeof(buf), v.get_double());
      return std::string(buf, r.ptr);
    }
    case boost::json::kind::bool_:
      return std::string(v.get_bool() ? "true" : "false");
    case boost::json::kind::null:
      return std::string();
    default:
      return Status::InvalidArgument(v.is_object() ? "an object" : "an array");
  }
}

}  // namespace

Status LoadSeedJson(TableStore& store, std::string_view json, std::string_view source_name) {
  const std::string src(source_name);
  boost::json::parser parser;
  boost::system::error_code ec;
  const size_t used = parser.write(json.data(), json.size(), ec);
  if (ec) {
    return Status::InvalidArgument(src + ": not valid JSON at " + LineColumn(json, used) + ": " +
                                   ec.message());
  }
  const boost::json::value doc = parser.release();
  if (!doc.is_object()) {
    return Status::InvalidArgument(src +
                                   ": the top level must be an object mapping table names "
                                   "to arrays of rows");
  }
  for (const auto& [key, rows] : doc.as_object()) {
    const std::string table(key);
    if (!IsValidTableName(table)) {
      return Status::InvalidArgument(src + ": '" + table.substr(0, 64) +
                                     "' is not a valid table name");
    }
    if (!rows.is_array()) {
      std::string error = src + ": table '";
      error += table + "' must map to an array of rows";
      return Status::InvalidArgument(std::move(error));
    }
    std::vector<Fields> loaded;
    const auto& arr = rows.as_array();
    loaded.reserve(arr.size());
    for (size_t i = 0; i < arr.size(); ++i) {
      std::string where = src + ": table '";
      where += table + "' row " + std::to_string(i);
      if (!arr[i].is_object()) return Status::InvalidArgument(where + " is not an object");
      Fields f;
      for (const auto& [name, value] : arr[i].as_object()) {
        auto text = ScalarText(value);
        if (!text.ok()) {
          return Status::InvalidArgument(where + ": field '" + std::string(name) + "' is " +
                                         text.status().message() +
                                         "; values must be strings, numbers, booleans or null");
        }
        f.emplace_back(std::string(name), std::move(*text));
      }
      loaded.push_back(std::move(f));
    }
    Status s = store.Load(table, loaded);
    if (!s.ok()) return s.WithContext(src);
  }
  return Status::Ok();
}

Status LoadSeedFile(TableStore& store, const std::string& path) {
  SNOWCAR_ASSIGN_OR_RETURN(const std::string text, ReadFileBounded(path, kSeedFileLimit));
  return LoadSeedJson(store, text, path);
}

}  // namespace snowcar::emulator
