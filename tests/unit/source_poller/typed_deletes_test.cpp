// SPDX-License-Identifier: Apache-2.0
// The records of a typed table's deletion capture (typed_deletes.h): an audit DELETE, its
// tombstone and a restored row, and reconciliation's DELETE, compared byte for byte with what
// the row stream's own TypedTable writes for the same row, in each typed format.
#include "source/deletes/typed_deletes.h"

#include <gmock/gmock.h>

#include <boost/json.hpp>

#include "deleted_row.h"
#include "snowcar/common/time.h"
#include "snowcar/source/rows/record_builder.h"
#include "source/deletes/reconcile_sweep.h"

namespace snowcar::source {
namespace {

using ::testing::HasSubstr;

using testing::kAuditId;
using testing::kRowId;
using testing::kT;

TableSettings Rows() {
  TableSettings t = testing::IncidentRows();
  t.deletes = DeleteCapture::kAuditReconcile;
  t.deletes_last_row = true;
  return t;
}

std::string Header(const kafka::OutRecord& r, std::string_view key) {
  const kafka::Header* h = kafka::FindHeader(r.headers, key);
  return h != nullptr && h->value ? *h->value : "";
}

// value.format (json when only the key is typed), key.format.
using Formats = std::tuple<RecordFormat, RecordFormat>;

class TypedDeletesTest : public ::testing::TestWithParam<Formats> {
 protected:
  void SetUp() override {
    source_.instance = "acme.service-now.com";
    source_.emit_tombstones = true;
    std::tie(source_.value_format, source_.key_format) = GetParam();
    source_.schema_mode =
        source_.value_format == RecordFormat::kJson ? SchemaMode::kSchemaless : SchemaMode::kTyped;
    // The row stream's table: types read (a table that extends nothing), schemas registered.
    auto registrar = [](const std::string&, bool is_key, RecordFormat, const std::string&,
                        const std::string&) -> Result<int32_t> { return is_key ? 3 : 7; };
    leader_ = TypedTable::MakeIfNeeded(source_, rows_, nullptr, registrar);
    ASSERT_NE(leader_, nullptr);
    const boost::json::array fields{boost::json::object{}};
    if (source_.schema_mode == SchemaMode::kTyped) {
      leader_->TypesTarget();
      ASSERT_FALSE(*leader_->OnTypesAnswer(
          boost::json::array{boost::json::object{{"name", "incident"}, {"super_class", ""}}},
          fields, 0));
      leader_->TypesTarget();
      boost::json::array dictionary;
      for (const auto& [element, type] :
           std::vector<std::pair<const char*, const char*>>{{"sys_id", "GUID"},
                                                            {"sys_updated_on", "glide_date_time"},
                                                            {"priority", "integer"},
                                                            {"active", "boolean"},
                                                            {"short_description", "string"}}) {
        dictionary.push_back({{"name", "incident"}, {"element", element}, {"internal_type", type}});
      }
      ASSERT_TRUE(*leader_->OnTypesAnswer(dictionary, fields, 0));
    }
    ASSERT_TRUE(leader_->Ready().ok());
    ASSERT_TRUE(leader_->RegisterSchemas().ok());
    stream_.rows = &rows_;
    stream_.settings = AuditTableSettings(rows_);
    stream_.watermark = std::make_shared<RowWatermark>();
    typed_ = TypedDeletes::MakeIfNeeded(source_, rows_);
    ASSERT_NE(typed_, nullptr);
  }

  bool TypedValues() const { return source_.schema_mode == SchemaMode::kTyped; }

  // What the row stream writes for `row`.
  kafka::OutRecord Upsert(const boost::json::object& row) {
    Result<RowKey> key = ReadRowKey(row, rows_);
    EXPECT_TRUE(key.ok()) << key.status().ToString();
    auto r = leader_->Build(row, *key, 0);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return *r;
  }

  static boost::json::object Row(std::string priority) {
    return {{"sys_id", kRowId},
            {"sys_updated_on", FormatSnowTimestamp(kT - 5)},
            {"priority", std::move(priority)},
            {"active", "true"},
            {"short_description", "printer on fire"}};
  }

  static boost::json::object Deleted(const boost::json::object* last_row) {
    boost::json::object e{{"sys_id", kAuditId},     {"sys_created_on", FormatSnowTimestamp(kT)},
                          {"sys_mod_count", "0"},   {"tablename", "incident"},
                          {"fieldname", "DELETED"}, {"documentkey", kRowId},
                          {"user", "alice"}};
    if (last_row != nullptr) e[kLastRowMember] = *last_row;
    return e;
  }

  Result<std::vector<kafka::OutRecord>> Audit(const boost::json::object& entry) {
    return TypedAuditRecords(entry, RowKey{kT, kAuditId, 0}, stream_, source_, kT * 1000, *typed_);
  }

  SourceSettings source_;
  TableSettings rows_ = Rows();
  std::unique_ptr<TypedTable> leader_;
  DeletesStream stream_;
  std::unique_ptr<TypedDeletes> typed_;
};

TEST_P(TypedDeletesTest, NothingIsWrittenBeforeTheRowStreamPublishedItsTypes) {
  const boost::json::object entry = Deleted(nullptr);
  auto records = Audit(entry);
  ASSERT_FALSE(records.ok());
  EXPECT_EQ(records.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(records.status().message(), HasSubstr("has not written a typed record yet"));
}

TEST_P(TypedDeletesTest, AnAuditDeleteAndItsTombstoneCarryTheUpsertsKeyAndTheTypedLastRow) {
  stream_.watermark->PublishTypes(leader_->Snapshot());
  const boost::json::object last = Row("3");
  const kafka::OutRecord upsert = Upsert(last);
  auto records = Audit(Deleted(&last));
  ASSERT_TRUE(records.ok()) << records.status().ToString();
  ASSERT_EQ(records->size(), 2u);
  const kafka::OutRecord& del = (*records)[0];
  const kafka::OutRecord& tomb = (*records)[1];
  EXPECT_EQ(Header(del, kOperationHeader), "DELETE");
  EXPECT_EQ(del.key, upsert.key) << "the row's UPSERT key bytes";
  EXPECT_EQ(tomb.key, upsert.key);
  EXPECT_EQ(Header(tomb, kOperationHeader), "TOMBSTONE");
  EXPECT_FALSE(tomb.value.has_value());
  EXPECT_EQ(del.timestamp_ms, kT * 1000) << "the deletion's time, not the row's";
  EXPECT_EQ(del.topic, rows_.topic);
  if (!TypedValues()) {
    // Only the key is typed: the value stays the untyped DELETE's.
    EXPECT_THAT(*del.value, HasSubstr("\"deleted_by\":\"alice\""));
    return;
  }
  // The value is the last row as the row stream writes it: same schema id, same bytes.
  EXPECT_EQ(del.value, upsert.value);
  EXPECT_EQ(Header(del, "snow.source.delete.deleted_by"), "alice");
  EXPECT_EQ(Header(del, "snow.source.delete.deleted_at"), FormatSnowTimestamp(kT));
  EXPECT_EQ(Header(del, "snow.source.delete.audit_sys_id"), kAuditId);
  EXPECT_EQ(Header(del, "snow.source.delete.last_row_error"), "");
  // The tombstone has the DELETE's headers but the operation, as untyped.
  EXPECT_EQ(Header(tomb, "snow.source.delete.deleted_by"), "alice");
  EXPECT_EQ(tomb.headers.size(), del.headers.size());
}

TEST_P(TypedDeletesTest, WithoutALastRowOrWithOneThatDoesNotParseTheValueHoldsTheSysIdAlone) {
  if (!TypedValues()) GTEST_SKIP() << "values untyped";
  stream_.watermark->PublishTypes(leader_->Snapshot());
  const kafka::OutRecord id_only =
      Upsert(boost::json::object{{"sys_id", kRowId}, {"sys_updated_on", "2026-03-01 11:00:00"}});
  // Upsert's value has sys_updated_on; the DELETE's has nothing but the sys_id.
  auto expected = leader_->Build(boost::json::object{{"sys_id", kRowId}}, RowKey{kT, kRowId, 0}, 0);
  ASSERT_TRUE(expected.ok());
  auto none = Audit(Deleted(nullptr));
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_EQ(none->front().value, expected->value);
  EXPECT_EQ(none->front().key, id_only.key);

  const boost::json::object bad = Row("high");  // written before priority became an integer
  auto records = Audit(Deleted(&bad));
  ASSERT_TRUE(records.ok()) << records.status().ToString();
  EXPECT_EQ(records->front().value, expected->value);
  EXPECT_THAT(Header(records->front(), "snow.source.delete.last_row_error"),
              HasSubstr("'high' is not an integer"));
}

TEST_P(TypedDeletesTest, ARowRestoredSinceIsTheUpsertTheRowStreamWrites) {
  stream_.watermark->PublishTypes(leader_->Snapshot());
  boost::json::object entry = Deleted(nullptr);
  entry["fieldname"] = "RECOVERED";
  const boost::json::object now = Row("2");
  entry[kRecoveredRowMember] = now;
  auto records = Audit(entry);
  ASSERT_TRUE(records.ok()) << records.status().ToString();
  ASSERT_EQ(records->size(), 1u);
  const kafka::OutRecord upsert = Upsert(now);
  EXPECT_EQ(records->front().key, upsert.key);
  EXPECT_EQ(records->front().value, upsert.value);
}

TEST_P(TypedDeletesTest, AReconciledDeleteCarriesTheUpsertsKeyAndSaysWhenItWasFoundGone) {
  const boost::json::object row = Row("4");
  const kafka::OutRecord upsert = Upsert(row);
  RowWatermark watermark;
  watermark.PublishTypes(leader_->Snapshot());
  auto records = ReconciledDeletes(typed_.get(), watermark, rows_, source_, kRowId, kT * 1000 + 250,
                                   kT * 1000 + 300);
  ASSERT_TRUE(records.ok()) << records.status().ToString();
  ASSERT_EQ(records->size(), 2u);
  EXPECT_EQ((*records)[0].key, upsert.key);
  EXPECT_EQ((*records)[1].key, upsert.key);
  EXPECT_FALSE((*records)[1].value.has_value());
  EXPECT_EQ((*records)[0].timestamp_ms, kT * 1000 + 250);
  EXPECT_EQ(Header((*records)[0], kDeleteFoundByHeader), "reconciliation");
  if (!TypedValues()) return;
  auto expected = leader_->Build(boost::json::object{{"sys_id", kRowId}}, RowKey{kT, kRowId, 0}, 0);
  ASSERT_TRUE(expected.ok());
  EXPECT_EQ((*records)[0].value, expected->value);
  EXPECT_EQ(Header((*records)[0], "snow.source.delete.found_gone_at"), FormatSnowTimestamp(kT));
  EXPECT_EQ(Header((*records)[0], "snow.source.delete.found_by"), "") << "a header already says it";

  // A row never emitted: the UPSERT the row stream writes.
  auto again =
      ReconciledRowRecord(typed_.get(), watermark, row, *ReadRowKey(row, rows_), rows_, source_, 0);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->key, upsert.key);
  EXPECT_EQ(again->value, upsert.value);
}

// A new schema version (a column added) reaches the deletes: the snapshot changes with it.
TEST_P(TypedDeletesTest, ANewSchemaIdIsFollowed) {
  if (source_.value_format != RecordFormat::kAvro) GTEST_SKIP() << "avro only";
  stream_.watermark->PublishTypes(leader_->Snapshot());
  ASSERT_TRUE(Audit(Deleted(nullptr)).ok());
  auto snapshot = std::make_shared<TypedSnapshot>(*leader_->Snapshot());
  snapshot->value_schema_id = 8;
  stream_.watermark->PublishTypes(snapshot);
  auto records = Audit(Deleted(nullptr));
  ASSERT_TRUE(records.ok());
  EXPECT_EQ(records->front().value->substr(0, 5), std::string("\0\0\0\0\x08", 5));
}

INSTANTIATE_TEST_SUITE_P(
    EveryTypedFormat, TypedDeletesTest,
    ::testing::Values(Formats{RecordFormat::kJsonTyped, RecordFormat::kJsonTyped},
                      Formats{RecordFormat::kAvro, RecordFormat::kAvro},
                      Formats{RecordFormat::kJsonSchema, RecordFormat::kJsonSchema},
                      Formats{RecordFormat::kProtobuf, RecordFormat::kProtobuf},
                      Formats{RecordFormat::kAvro, RecordFormat::kString},
                      Formats{RecordFormat::kJson, RecordFormat::kAvro}),
    [](const ::testing::TestParamInfo<Formats>& info) {
      auto name = [](RecordFormat f) -> std::string {
        switch (f) {
          case RecordFormat::kJsonTyped:
            return "JsonTyped";
          case RecordFormat::kAvro:
            return "Avro";
          case RecordFormat::kJsonSchema:
            return "JsonSchema";
          case RecordFormat::kProtobuf:
            return "Protobuf";
          case RecordFormat::kString:
            return "String";
          default:
            return "Json";
        }
      };
      return name(std::get<0>(info.param)) + "Values" + name(std::get<1>(info.param)) + "Keys";
    });

}  // namespace
}  // namespace snowcar::source
