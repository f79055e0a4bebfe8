// SPDX-License-Identifier: Apache-2.0
// The columns a table accepts, for the unknown-field policy: every sys_dictionary element of
// the table and of its super-classes (incident extends task, so `short_description`, defined
// on task, is an incident column). The chain comes from sys_db_object.super_class.
//
// Looked up once per table and cached for the life of the process: a schema change on the
// instance needs a restart to be seen, which is the price of not asking on every record.
// A lookup that fails is not cached, so the lane that retries it asks again.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "limited_client.h"
#include "snowcar/common/mutex.h"
#include "snowcar/sink/commands/failure.h"

namespace snowcar::sink {

using ColumnSet = std::set<std::string>;

struct CatalogAnswer {
  std::shared_ptr<const ColumnSet> columns;  // set when the lookup worked
  std::optional<Failure> failure;            // set otherwise
};

class FieldCatalog {
 public:
  using Done = std::function<void(CatalogAnswer)>;

  explicit FieldCatalog(LimitedClient& client) : client_(client) {}

  // The columns of `table` (from the cache, or looked up). `done` is posted to `executor`.
  // Thread-safe; two lanes asking for an uncached table at once may both look it up.
  void Columns(const std::string& table, const boost::asio::any_io_executor& executor, Done done);

  // The cached columns, or nullptr.
  std::shared_ptr<const ColumnSet> Cached(const std::string& table) const;

 private:
  struct Lookup;

  LimitedClient& client_;
  mutable Mutex mu_;
  std::map<std::string, std::shared_ptr<const ColumnSet>> cache_ SNOWCAR_GUARDED_BY(mu_);
};

}  // namespace snowcar::sink
