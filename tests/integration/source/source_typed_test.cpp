// SPDX-License-Identifier: Apache-2.0
// Typed records end to end: emulator (with its sys_dictionary) -> `snowcar run` -> embedded
// Kafka, read back by readers snowcar did not write: python3-confluent-kafka consumes the
// topic and python3-avro decodes the Avro payloads against the schema the registry test
// double (`snowcar::registry`) holds for each record's id.
#include <gmock/gmock.h>

#include <boost/json.hpp>
#include <map>

#include "inherited_rows.h"
#include "snowcar/common/time.h"
#include "snowcar/testbed/registry/registry_server.h"
#include "source_harness.h"

namespace snowcar::source::it {
namespace {

using ::testing::HasSubstr;

// Debian's interpreter: python3-avro and python3-confluent-kafka are installed for it.
constexpr const char* kPython = "/usr/bin/python3";

class SourceTyped : public SourceTest {
 protected:
  // The reader's output, one decoded record per line, by key.
  std::map<std::string, boost::json::object> ReadWithPython(const std::vector<std::string>& extra,
                                                            size_t expect) {
    std::vector<std::string> args = {
        std::string(SNOWCAR_SOURCE_DIR) + "/tests/integration/source/read_typed_topic.py",
        "--bootstrap", bootstrap(), "--topic", topic_};
    args.insert(args.end(), extra.begin(), extra.end());
    return ReadDecoded(kPython, std::move(args), expect);
  }
};

TEST_F(SourceTyped, AvroRecordsWithTheRegistryDecodeInAnIndependentReader) {
  registry::RegistryServer registry(registry::RegistryServerOptions{});
  ASSERT_TRUE(registry.Start().ok());
  ASSERT_TRUE(broker().CreateTopic(topic_, 2).ok());
  const int64_t base = NowS() - 600;
  std::vector<std::string> ids;
  ASSERT_TRUE(emu_->store().Load("incident", TypedIncidentRows(25, 0xa000, base, &ids)).ok());
  props_["value.format"] = "avro";
  props_["key.format"] = "avro";
  props_["schema.registry.url"] = registry.base_url();
  Start();

  auto got = ReadWithPython(
      {"--format", "avro", "--key-format", "avro", "--registry", registry.base_url()}, ids.size());
  ASSERT_EQ(got.size(), ids.size());
  for (int i = 0; i < 25; ++i) {
    const auto& rec = got.at(ids[i]);
    ASSERT_TRUE(rec.at("schema_id").is_int64()) << "value framed with a registry id";
    const auto& v = rec.at("value").as_object();
    EXPECT_EQ(v.at("sys_id").as_string(), ids[i]);
    EXPECT_EQ(v.at("short_description").as_string(), "row " + std::to_string(i));
    // Types from sys_dictionary: priority is an integer choice, active a boolean, the
    // date-times UTC instants, sys_mod_count an integer; an empty date-time is null.
    EXPECT_EQ(v.at("priority").as_int64(), 1 + i % 5);
    EXPECT_EQ(v.at("active").as_bool(), i % 2 == 0);
    EXPECT_EQ(v.at("reassignment_count").as_int64(), i);
    EXPECT_EQ(v.at("sys_mod_count").as_int64(), 0);
    EXPECT_EQ(v.at("sys_updated_on").as_string(), FormatIso8601Millis((base + i) * 1000));
    EXPECT_EQ(v.at("opened_at").as_string(), FormatIso8601Millis((base - 3600) * 1000));
    EXPECT_TRUE(v.at("resolved_at").is_null());
  }
  // One value schema and one key schema, registered under the topic-name strategy.
  auto subjects = testsupport::RunToCompletion(
      "curl", testsupport::ChildOptions{.args = {"-s", registry.base_url() + "/subjects"}}, 10s);
  ASSERT_TRUE(subjects.ok());
  EXPECT_THAT(subjects->out, HasSubstr("\"" + topic_ + "-value\""));
  EXPECT_THAT(subjects->out, HasSubstr("\"" + topic_ + "-key\""));
  StopGracefully();
  registry.Stop();
}

// A table whose dictionary a test writes: every internal_type the mapping names that the
// emulator's own tables lack, with a bad value that the bad-row policy skips.
TEST_F(SourceTyped, JsonTypedValuesFollowTheDictionaryAndABadValueIsSkippedNamingIt) {
  ASSERT_TRUE(broker().CreateTopic(topic_, 1).ok());
  auto& store = emu_->store();
  ASSERT_TRUE(store.CreateTable("sys_dictionary").ok());  // the test's own dictionary
  const std::vector<std::pair<std::string, std::string>> columns = {
      {"sys_id", "GUID"},           {"sys_updated_on", "glide_date_time"},
      {"sys_mod_count", "integer"}, {"u_amount", "currency"},
      {"u_ratio", "float"},         {"u_count", "integer"},
      {"u_flag", "boolean"},        {"u_day", "glide_date"},
      {"u_due", "due_date"},        {"u_owner", "reference"}};
  for (const auto& [element, type] : columns) {
    emulator::Fields f = {{"name", "u_asset"}, {"element", element}, {"internal_type", type}};
    if (element == "u_amount") f.emplace_back("attributes", "scale=4");
    ASSERT_TRUE(store.Insert("sys_dictionary", f).ok());
  }
  const int64_t base = NowS() - 600;
  const std::string good = "0000000000000000000000000000a001";
  const std::string bad = "0000000000000000000000000000a002";
  const std::string after = "0000000000000000000000000000a003";
  auto row = [&](const std::string& id, int64_t ts, const std::string& count) {
    return emulator::Fields{{"sys_id", id},
                            {"sys_updated_on", FormatSnowTimestamp(ts)},
                            {"sys_created_on", FormatSnowTimestamp(ts)},
                            {"u_amount", "12345678901234567890.1250"},
                            {"u_ratio", "0.1"},
                            {"u_count", count},
                            {"u_flag", "true"},
                            {"u_day", "2026-02-28"},
                            {"u_due", "2026-03-01 17:30:00"},
                            {"u_owner", "0123456789abcdef0123456789abcdef"}};
  };
  ASSERT_TRUE(store.CreateTable("u_asset").ok());
  ASSERT_TRUE(store
                  .Load("u_asset", {row(good, base, "-7"), row(bad, base + 1, "seven"),
                                    row(after, base + 2, "")})
                  .ok());
  props_["snow.table.inc.name"] = "u_asset";
  props_["snow.source.schema.mode"] = "typed";
  props_["snow.source.bad.row.behavior"] = "skip";
  Start();

  auto records = WaitForRecords(topic_, 2);
  ASSERT_EQ(records.size(), 2u);
  ASSERT_TRUE(testsupport::WaitFor([&] { return Counter("rows_skipped") == 1; }, 20s))
      << boost::json::serialize(Table()) << child_->Stderr();
  const auto& v = records[0].value;
  EXPECT_EQ(records[0].key, good);
  // The decimal keeps every digit on the wire (a JSON parser may still read it as a double,
  // as the harness's does, so the raw record text is checked).
  testsupport::ChildOptions raw;
  raw.args = {"-b", bootstrap(), "-C", "-t", topic_, "-o", "beginning", "-e", "-q", "-f", "%s\n"};
  auto text = testsupport::RunToCompletion("kcat", raw, 30s);
  ASSERT_TRUE(text.ok());
  EXPECT_THAT(text->out, HasSubstr("\"u_amount\":12345678901234567890.1250,"));
  EXPECT_EQ(v.at("u_ratio").as_double(), 0.1);
  EXPECT_EQ(v.at("u_count").as_int64(), -7);
  EXPECT_EQ(v.at("u_flag").as_bool(), true);
  EXPECT_EQ(v.at("u_day").as_string(), "2026-02-28");
  EXPECT_EQ(v.at("u_due").as_string(), "2026-03-01T17:30:00.000Z");
  EXPECT_EQ(v.at("u_owner").as_string(), "0123456789abcdef0123456789abcdef");
  EXPECT_EQ(v.at("sys_mod_count").as_int64(), 0);
  // Fields the dictionary does not list stay strings.
  EXPECT_EQ(v.at("sys_created_on").as_string(), FormatSnowTimestamp(base));
  EXPECT_EQ(records[1].key, after);
  EXPECT_TRUE(records[1].value.at("u_count").is_null());
  StopGracefully();
  EXPECT_THAT(last_stderr_, HasSubstr("row " + bad +
                                      ", field u_count (integer -> integer): "
                                      "'seven' is not an integer"));
}

// Evolution with restarts in between, against the registry double (BACKWARD): a column added
// on the instance becomes a new optional field under a new schema id; a removed column keeps
// its field; a type change the registry refuses pauses the table with the registry's answer
// and drops nothing, and the table goes on once the dictionary is back.
TEST_F(SourceTyped, SchemaEvolvesAcrossRestartsAndARefusedChangePausesTheTable) {
  registry::RegistryServer registry(registry::RegistryServerOptions{});
  ASSERT_TRUE(registry.Start().ok());
  ASSERT_TRUE(broker().CreateTopic(topic_, 1).ok());
  auto& store = emu_->store();
  ASSERT_TRUE(store.CreateTable("sys_dictionary").ok());
  auto column = [&](const std::string& element, const std::string& type) {
    auto written = store.Insert(
        "sys_dictionary", {{"name", "u_asset"}, {"element", element}, {"internal_type", type}});
    EXPECT_TRUE(written.ok());
    return written.ok() ? std::string(written->row->sys_id()) : std::string();
  };
  column("sys_id", "GUID");
  column("sys_updated_on", "glide_date_time");
  column("sys_mod_count", "integer");
  const std::string count_row = column("u_count", "integer");
  ASSERT_TRUE(store.CreateTable("u_asset").ok());
  const int64_t base = NowS() - 600;
  auto load = [&](int n, const std::vector<std::pair<std::string, std::string>>& extra) {
    char id[33];
    std::snprintf(id, sizeof(id), "%032x", 0xb000 + n);
    emulator::Fields f = {{"sys_id", id}, {"sys_updated_on", FormatSnowTimestamp(base + n)}};
    f.insert(f.end(), extra.begin(), extra.end());
    EXPECT_TRUE(store.Load("u_asset", {f}).ok());
    return std::string(id);
  };
  props_["snow.table.inc.name"] = "u_asset";
  props_["value.format"] = "avro";
  props_["schema.registry.url"] = registry.base_url();
  const std::vector<std::string> read = {"--format", "avro", "--registry", registry.base_url()};

  const std::string first = load(1, {{"u_count", "5"}});
  Start();
  auto got = ReadWithPython(read, 1);
  const int64_t first_id = got.at(first).at("schema_id").as_int64();
  EXPECT_EQ(got.at(first).at("value").at("u_count").as_int64(), 5);
  StopGracefully();

  // Added on the instance while stopped: the stored types lack it, the row that carries it
  // makes the source read the dictionary again.
  column("u_day", "glide_date");
  const std::string second = load(2, {{"u_count", "6"}, {"u_day", "2026-01-31"}});
  Start();
  got = ReadWithPython(read, 2);
  const boost::json::object v2 = got.at(second);  // a copy: `got` is read again below
  EXPECT_NE(v2.at("schema_id").as_int64(), first_id) << "a new schema version";
  EXPECT_EQ(v2.at("value").at("u_day").as_string(), "2026-01-31");
  EXPECT_EQ(v2.at("value").at("u_count").as_int64(), 6);
  EXPECT_TRUE(got.at(first).at("value").as_object().contains("u_count"));
  StopGracefully();

  // u_count turns into a string column: BACKWARD refuses long -> string. The table pauses
  // with the registry's answer; its rows wait.
  ASSERT_TRUE(store.Update("sys_dictionary", count_row, {{"internal_type", "string"}}).ok());
  const std::string third = load(3, {{"u_count", "7"}});
  props_["snow.source.schema.refresh.ms"] = "1000";
  Start(/*wait_ready=*/false);
  ASSERT_TRUE(testsupport::WaitFor(
      [&] {
        auto t = Table();
        return t.contains("last_error") && t.at("last_error").is_string() &&
               std::string(t.at("last_error").as_string()).find("schema registry") !=
                   std::string::npos &&
               t.at("state").as_string() == "backing_off";
      },
      30s))
      << boost::json::serialize(Table());
  EXPECT_THAT(std::string(Table().at("last_error").as_string()), HasSubstr(topic_ + "-value"));
  // Nothing under a refused schema. Row 3 itself may be on the topic already: the stored
  // types (u_count an integer) were under a second old at the start, so its page could be
  // read before the refresh found the change, and "7" is an integer. It then went out under
  // the second schema. (The test read 2 records here while the source's first record waited
  // about 700 ms for its topic's metadata; that wait is gone.)
  for (const auto& [key, record] : ReadWithPython(read, 2)) {
    const int64_t id = record.at("schema_id").as_int64();
    EXPECT_TRUE(id == first_id || id == v2.at("schema_id").as_int64())
        << key << " was written under schema " << id;
  }
  // Put the type back: the next read of the dictionary lets the waiting row through.
  ASSERT_TRUE(store.Update("sys_dictionary", count_row, {{"internal_type", "integer"}}).ok());
  got = ReadWithPython(read, 3);
  EXPECT_EQ(got.at(third).at("value").at("u_count").as_int64(), 7);
  EXPECT_EQ(got.at(third).at("schema_id").as_int64(), v2.at("schema_id").as_int64());
  StopGracefully();
  registry.Stop();
}

TEST_F(SourceTyped, JsonTypedWritesIncidentsColumnsInheritedFromTaskAsTheirTypes) {
  ASSERT_TRUE(broker().CreateTopic(topic_, 1).ok());
  const int64_t base = NowS() - 600;
  std::vector<emulator::Fields> rows;
  for (int n = 0; n < 4; ++n) {
    char id[33];
    std::snprintf(id, sizeof(id), "%032x", 0xc000 + n);
    rows.push_back(IncidentWithTaskColumns({id, n}, base));
  }
  ASSERT_TRUE(emu_->store().Load("incident", rows).ok());
  props_["value.format"] = "json_typed";
  Start();
  auto records = WaitForRecords(topic_, rows.size());
  ASSERT_EQ(records.size(), rows.size());
  for (size_t n = 0; n < records.size(); ++n) {
    SCOPED_TRACE(records[n].key);
    ExpectInheritedColumnsTyped(records[n].value, static_cast<int>(n), base);
  }
  StopGracefully();
  // The chain was walked (incident by name, task by the sys_id incident names) and the
  // dictionary read for both tables at once.
  std::string journal;
  for (const emulator::JournalEntry& e : emu_->journal().All()) journal += e.target + "\n";
  EXPECT_THAT(journal, HasSubstr("/api/now/table/sys_db_object?sysparm_query=name%3Dincident"));
  EXPECT_THAT(journal, HasSubstr("/api/now/table/sys_db_object?sysparm_query=sys_id%3D"));
  EXPECT_THAT(journal, HasSubstr("sysparm_query=nameINincident%2Ctask"));
}

// Through the registry double: the values decoded by the Python reader against the schema the
// registry holds, for `format` (read as `reader_format`).
class SourceTypedInherited : public SourceTyped {
 protected:
  void ExpectInheritedThroughRegistry(const char* format, const char* reader_format, int id_base) {
    registry::RegistryServer registry(registry::RegistryServerOptions{});
    ASSERT_TRUE(registry.Start().ok());
    ASSERT_TRUE(broker().CreateTopic(topic_, 1).ok());
    const int64_t base = NowS() - 600;
    std::vector<emulator::Fields> rows;
    std::vector<InheritedRow> ids;
    for (int n = 0; n < 4; ++n) {
      ids.push_back({InheritedRowId(id_base + n), n});
      rows.push_back(IncidentWithTaskColumns(ids.back(), base));
    }
    ASSERT_TRUE(emu_->store().Load("incident", rows).ok());
    props_["value.format"] = format;
    props_["schema.registry.url"] = registry.base_url();
    Start();
    auto got =
        ReadWithPython({"--format", reader_format, "--registry", registry.base_url()}, ids.size());
    ASSERT_EQ(got.size(), ids.size());
    for (const InheritedRow& r : ids) {
      SCOPED_TRACE(r.id);
      ExpectInheritedColumnsTyped(got.at(r.id).at("value").as_object(), r.n, base);
    }
    StopGracefully();
    registry.Stop();
  }
};

TEST_F(SourceTypedInherited, AvroWritesIncidentsColumnsInheritedFromTaskAsTheirTypes) {
  ExpectInheritedThroughRegistry("avro", "avro", 0xd000);
}

TEST_F(SourceTypedInherited, JsonSchemaWritesIncidentsColumnsInheritedFromTaskAsTheirTypes) {
  ExpectInheritedThroughRegistry("json_schema", "json", 0xe000);
}

// The integration user may not read sys_db_object: the table stops naming the table it could
// not read, as a refused read of sys_dictionary does, and writes nothing as strings.
TEST_F(SourceTyped, ARefusedReadOfSysDbObjectStopsTheTableNamingIt) {
  ASSERT_TRUE(broker().CreateTopic(topic_, 1).ok());
  emu_->faults().AddRule({.kind = emulator::FaultKind::kForbidden,
                          .scope = {.method = "GET", .path_prefix = "/api/now/table/sys_db_object"},
                          .share = 1.0});
  ASSERT_TRUE(
      emu_->store()
          .Load("incident", {IncidentWithTaskColumns({std::string(32, 'e'), 0}, NowS() - 600)})
          .ok());
  props_["value.format"] = "json_typed";
  Start(/*wait_ready=*/false);
  ASSERT_TRUE(testsupport::WaitFor([&] { return TableState() == "failed"; }, 30s))
      << boost::json::serialize(Table());
  const std::string error(Table().at("last_error").as_string());
  EXPECT_THAT(error, HasSubstr("sys_db_object"));
  EXPECT_THAT(error, HasSubstr("403"));
  EXPECT_THAT(error, HasSubstr("typed records need read access to sys_db_object"));
  EXPECT_EQ(Counter("rows_emitted"), 0) << "nothing was written as strings";
  StopGracefully();
}

}  // namespace
}  // namespace snowcar::source::it
