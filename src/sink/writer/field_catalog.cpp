// SPDX-License-Identifier: Apache-2.0
#include "field_catalog.h"

#include <boost/asio/post.hpp>
#include <boost/json.hpp>

#include "call_failure.h"
#include "snowcar/common/log.h"
#include "snowcar/common/text.h"
#include "snowcar/common/url_encoding.h"

namespace snowcar::sink {
namespace {

// Far deeper than any real hierarchy (cmdb_ci_linux_server is about 5 deep); a cycle in a
// broken dictionary stops here instead of looping.
constexpr int kMaxChainDepth = 16;

// A 403 on a metadata table is about the integration user's rights, not the record: every
// command would meet it. Held (the lane retries the command), not a record error that would
// dead-letter each one; the sink's rights probe names the missing right in health.
Failure MetadataFailure(const servicenow::CallResult& result, const std::string& what,
                        std::string_view table) {
  if (result.klass == servicenow::OutcomeClass::kPermission) {
    return FailureFromCall(result,
                           what + ": the integration user may not read " + std::string(table) +
                               " (health component sink.rights)",
                           servicenow::Action::kHold);
  }
  return FailureFromCall(result, what, servicenow::CallPurpose::kLookup);
}
constexpr int kColumnPageLimit = 10000;

// A reference field reads as a plain sys_id with sysparm_exclude_reference_link=true, but
// as {"value":..,"link":..} without; accept both.
std::string ReferenceValue(const boost::json::object& row, std::string_view field) {
  const boost::json::value* v = row.if_contains(field);
  if (v == nullptr) return {};
  if (v->is_string()) return std::string(v->as_string());
  if (v->is_object()) {
    const boost::json::value* inner = v->as_object().if_contains("value");
    if (inner != nullptr && inner->is_string()) return std::string(inner->as_string());
  }
  return {};
}

std::string StringField(const boost::json::object& row, std::string_view field) {
  const boost::json::value* v = row.if_contains(field);
  return (v != nullptr && v->is_string()) ? std::string(v->as_string()) : std::string();
}

}  // namespace

// One walk up the chain and one dictionary read; lives until its last answer.
struct FieldCatalog::Lookup : std::enable_shared_from_this<FieldCatalog::Lookup> {
  FieldCatalog* catalog = nullptr;
  std::string table;
  boost::asio::any_io_executor executor;
  Done done;
  std::vector<std::string> chain;  // table first, then its super-classes

  void Start() {
    servicenow::InstanceRequest r;
    r.target = "/api/now/table/sys_db_object?sysparm_query=" + PercentEncode("name=" + table) +
               "&sysparm_fields=sys_id%2Cname%2Csuper_class&sysparm_limit=1"
               "&sysparm_exclude_reference_link=true";
    auto self = shared_from_this();
    catalog->client_.Send(std::move(r), executor, [self](servicenow::CallResult result) {
      if (!result.ok()) {
        return self->Fail(MetadataFailure(
            result, "looking up table " + self->table + " in sys_db_object", "sys_db_object"));
      }
      if (result.response.rows.empty() || !result.response.rows[0].is_object()) {
        return self->Fail(
            MakeFailure(ErrorClass::kRecordError,
                        "table " + self->table +
                            " is not in sys_db_object: no such table, or the "
                            "integration user may not read sys_db_object (needed by "
                            "snow.sink.unknown.field.behavior other than passthrough)"));
      }
      const auto& row = result.response.rows[0].as_object();
      self->chain.push_back(self->table);
      self->Next(ReferenceValue(row, "super_class"));
    });
  }

  void Next(const std::string& super_sys_id) {
    if (super_sys_id.empty() || static_cast<int>(chain.size()) >= kMaxChainDepth) {
      return ReadColumns();
    }
    servicenow::InstanceRequest r;
    r.target = "/api/now/table/sys_db_object/" + PercentEncode(super_sys_id) +
               "?sysparm_fields=sys_id%2Cname%2Csuper_class&sysparm_exclude_reference_link=true";
    auto self = shared_from_this();
    catalog->client_.Send(std::move(r), executor, [self](const servicenow::CallResult& result) {
      if (!result.ok()) {
        return self->Fail(MetadataFailure(
            result, "reading the super-class chain of " + self->table + " in sys_db_object",
            "sys_db_object"));
      }
      const auto& row = result.response.record;
      std::string name = StringField(row, "name");
      if (name.empty() ||
          std::find(self->chain.begin(), self->chain.end(), name) != self->chain.end()) {
        return self->ReadColumns();
      }
      self->chain.push_back(std::move(name));
      self->Next(ReferenceValue(row, "super_class"));
    });
  }

  void ReadColumns() {
    std::string names;
    for (const auto& n : chain) {
      if (!names.empty()) names += ",";
      names += n;
    }
    servicenow::InstanceRequest r;
    r.target = "/api/now/table/sys_dictionary?sysparm_query=" + PercentEncode("nameIN" + names) +
               "&sysparm_fields=element&sysparm_limit=" + std::to_string(kColumnPageLimit) +
               "&sysparm_no_count=true";
    auto self = shared_from_this();
    catalog->client_.Send(std::move(r), executor, [self](const servicenow::CallResult& result) {
      if (!result.ok()) {
        return self->Fail(
            MetadataFailure(result, "reading the columns of " + self->table + " in sys_dictionary",
                            "sys_dictionary"));
      }
      auto columns = std::make_shared<ColumnSet>();
      for (const auto& v : result.response.rows) {
        if (!v.is_object()) continue;
        std::string element = StringField(v.as_object(), "element");
        if (!element.empty()) columns->insert(std::move(element));
      }
      // sys_id and the system fields are columns of every table, dictionary entry or not.
      for (const char* f : {"sys_id", "sys_created_on", "sys_created_by", "sys_updated_on",
                            "sys_updated_by", "sys_mod_count"}) {
        columns->insert(f);
      }
      SNOWCAR_LOG(kDebug, "sink.catalog.loaded",
                  {{"table", self->table},
                   {"chain", self->ChainText()},
                   {"columns", static_cast<int64_t>(columns->size())}});
      {
        MutexLock lock(self->catalog->mu_);
        self->catalog->cache_[self->table] = columns;
      }
      self->done(CatalogAnswer{std::move(columns), std::nullopt});
    });
  }

  std::string ChainText() const {
    std::string out;
    for (const auto& n : chain) out += (out.empty() ? "" : ">") + n;
    return out;
  }

  void Fail(Failure failure) { done(CatalogAnswer{nullptr, std::move(failure)}); }
};

void FieldCatalog::Columns(const std::string& table, const boost::asio::any_io_executor& executor,
                           Done done) {
  if (auto cached = Cached(table)) {
    boost::asio::post(executor, [done = std::move(done), cached]() mutable {
      done(CatalogAnswer{std::move(cached), std::nullopt});
    });
    return;
  }
  auto lookup = std::make_shared<Lookup>();
  lookup->catalog = this;
  lookup->table = table;
  lookup->executor = executor;
  lookup->done = std::move(done);
  lookup->Start();
}

std::shared_ptr<const ColumnSet> FieldCatalog::Cached(const std::string& table) const {
  MutexLock lock(mu_);
  auto it = cache_.find(table);
  return it == cache_.end() ? nullptr : it->second;
}

}  // namespace snowcar::sink
