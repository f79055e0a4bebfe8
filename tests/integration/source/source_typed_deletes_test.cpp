// SPDX-License-Identifier: Apache-2.0
// Deletes of typed tables end to end, every delete mode with every typed format: emulator ->
// `snowcar run` -> embedded Kafka, with the Schema Registry test double. The topic is read
// back raw (librdkafka, by assignment) and checked against the schema the registry holds for
// each record's id, with readers snowcar did not write: avro-c for Avro values, and for JSON
// Schema values a check of each member against the schema's `properties` and their `type`s
// (python3-jsonschema is not among the Debian packages the tests use); Protobuf values are
// parsed by libprotobuf's dynamic message built from the registered .proto text. Per deleted row:
// its DELETE and tombstone carry the very key bytes of its UPSERTs (so the same partition), the
// DELETE's value is a record of the schema its UPSERTs were written with, and the last row it
// carries is typed.
#include <avro.h>
#include <gmock/gmock.h>
#include <librdkafka/rdkafka.h>

#include <boost/json.hpp>
#include <map>
#include <set>
#include <tuple>

#include "snowcar/common/time.h"
#include "snowcar/schema_registry/framed_decoder.h"
#include "snowcar/testbed/registry/registry_server.h"
#include "source_harness.h"
#include "support/kafka_client.h"

namespace snowcar::source::it {
namespace {

struct RawRecord {
  int32_t partition = 0;
  std::optional<std::string> key;
  std::optional<std::string> value;  // nullopt: a tombstone
  std::map<std::string, std::string> headers;
  std::string Header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? "" : it->second;
  }
  std::string Op() const { return Header("snow.source.operation"); }
};

// Every record of `topic` now, read by assignment from the beginning (no group to join).
std::vector<RawRecord> ReadRaw(const std::string& bootstrap, const std::string& topic,
                               int partitions) {
  char err[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  for (const auto& [k, v] :
       std::vector<std::pair<const char*, std::string>>{{"bootstrap.servers", bootstrap},
                                                        {"group.id", "typed-deletes-reader"},
                                                        {"enable.partition.eof", "true"},
                                                        {"enable.auto.commit", "false"}}) {
    EXPECT_EQ(rd_kafka_conf_set(conf, k, v.c_str(), err, sizeof(err)), RD_KAFKA_CONF_OK) << err;
  }
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof(err));
  if (rk == nullptr) {
    ADD_FAILURE() << err;
    return {};
  }
  rd_kafka_poll_set_consumer(rk);
  rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(partitions);
  for (int p = 0; p < partitions; ++p) {
    rd_kafka_topic_partition_list_add(list, topic.c_str(), p)->offset = RD_KAFKA_OFFSET_BEGINNING;
  }
  EXPECT_EQ(rd_kafka_assign(rk, list), RD_KAFKA_RESP_ERR_NO_ERROR);
  rd_kafka_topic_partition_list_destroy(list);
  std::vector<RawRecord> out;
  std::set<int32_t> at_end;
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  while (static_cast<int>(at_end.size()) < partitions &&
         std::chrono::steady_clock::now() < deadline) {
    rd_kafka_message_t* m = rd_kafka_consumer_poll(rk, 200);
    if (m == nullptr) continue;
    if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
      at_end.insert(m->partition);
    } else if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
      testsupport::Message msg = testsupport::CopyMessage(m);
      RawRecord r;
      r.partition = msg.partition;
      r.key = std::move(msg.key);
      r.value = std::move(msg.value);
      // A repeated header keeps its last value, as the checks below expect.
      for (auto& [name, value] : msg.headers) r.headers[name] = std::move(value);
      out.push_back(std::move(r));
    }
    rd_kafka_message_destroy(m);
  }
  EXPECT_EQ(static_cast<int>(at_end.size()), partitions) << "did not read to the end of " << topic;
  rd_kafka_consumer_close(rk);
  rd_kafka_destroy(rk);
  return out;
}

// Confluent's wire format: the schema id of a framed payload, or -1.
int32_t SchemaId(const std::string& bytes) {
  if (bytes.size() < 5 || bytes[0] != '\0') return -1;
  const auto* b = reinterpret_cast<const unsigned char*>(bytes.data());
  return static_cast<int32_t>((uint32_t{b[1]} << 24) | (uint32_t{b[2]} << 16) |
                              (uint32_t{b[3]} << 8) | uint32_t{b[4]});
}

// An Avro payload read by avro-c with `schema`, rendered as avro-c's JSON (a union's branch
// as {"<type>": value}).
Result<std::string> AvroJson(const std::string& schema, const std::string& payload) {
  avro_schema_t s = nullptr;
  if (avro_schema_from_json_length(schema.data(), schema.size(), &s) != 0) {
    return Status::InvalidArgument(std::string("not an Avro schema: ") + avro_strerror());
  }
  avro_value_iface_t* iface = avro_generic_class_from_schema(s);
  avro_value_t value;
  avro_generic_value_new(iface, &value);
  avro_reader_t reader = avro_reader_memory(payload.data(), static_cast<int64_t>(payload.size()));
  const int rc = avro_value_read(reader, &value);
  char extra = 0;
  const bool rest = rc == 0 && avro_read(reader, &extra, 1) == 0;
  std::string out;
  char* json = nullptr;
  if (rc == 0 && avro_value_to_json(&value, 1, &json) == 0 && json != nullptr) out = json;
  free(json);  // NOLINT(cppcoreguidelines-no-malloc): avro-c allocates with malloc
  avro_reader_free(reader);
  avro_value_decref(&value);
  avro_value_iface_decref(iface);
  avro_schema_decref(s);
  if (rc != 0) return Status::InvalidArgument(std::string("Avro payload: ") + avro_strerror());
  if (rest) return Status::InvalidArgument("bytes after the Avro value");
  return out;
}

// The JSON type names of `v` a JSON Schema `type` may list.
std::vector<std::string> JsonTypes(const boost::json::value& v) {
  switch (v.kind()) {
    case boost::json::kind::null:
      return {"null"};
    case boost::json::kind::bool_:
      return {"boolean"};
    case boost::json::kind::int64:
    case boost::json::kind::uint64:
      return {"integer", "number"};
    case boost::json::kind::double_:
      return {"number"};
    case boost::json::kind::string:
      return {"string"};
    case boost::json::kind::array:
      return {"array"};
    default:
      return {"object"};
  }
}

// `value` against a JSON Schema of an object: every member a declared property whose `type`
// (one name or a list) admits the member's JSON type. "" when it holds, else what does not.
std::string CheckAgainstJsonSchema(const std::string& schema_text,
                                   const boost::json::object& value) {
  boost::system::error_code ec;
  const boost::json::value schema = boost::json::parse(schema_text, ec);
  if (ec || !schema.is_object()) return "the schema is not a JSON object";
  const boost::json::value* kind = schema.as_object().if_contains("type");
  if (kind == nullptr || *kind != "object") return "the schema is not of an object";
  const boost::json::value* props = schema.as_object().if_contains("properties");
  if (props == nullptr || !props->is_object()) return "the schema has no properties";
  for (const auto& [name, member] : value) {
    const boost::json::value* p = props->as_object().if_contains(name);
    if (p == nullptr || !p->is_object()) return std::string(name) + " is not a property";
    const boost::json::value* type = p->as_object().if_contains("type");
    if (type == nullptr) continue;  // any type
    std::vector<std::string> allowed;
    if (type->is_string()) allowed.emplace_back(type->as_string());
    if (type->is_array()) {
      for (const auto& t : type->as_array()) allowed.emplace_back(t.as_string());
    }
    bool ok = false;
    for (const std::string& t : JsonTypes(member)) {
      ok = ok || std::find(allowed.begin(), allowed.end(), t) != allowed.end();
    }
    if (!ok) {
      return std::string(name) + " = " + boost::json::serialize(member) + " is not of type " +
             boost::json::serialize(*type);
    }
  }
  return "";
}

// A field of a decoded value: avro-c writes an optional field's value as {"<type>": value}.
const boost::json::value& Field(const boost::json::object& row, const char* name) {
  static const boost::json::value kNull;
  const boost::json::value* v = row.if_contains(name);
  if (v == nullptr) return kNull;
  if (v->is_object() && v->as_object().size() == 1) return v->as_object().begin()->value();
  return *v;
}

using Case = std::tuple<std::string, std::string>;  // delete mode, format

class SourceTypedDeletes : public SourceTest, public ::testing::WithParamInterface<Case> {
 protected:
  std::string format() const { return std::get<1>(GetParam()); }

  // The schema text the registry double holds under `id`.
  std::string SchemaById(int32_t id) {
    auto it = schemas_.find(id);
    if (it != schemas_.end()) return it->second;
    auto r = testsupport::RunToCompletion(
        "curl",
        testsupport::ChildOptions{
            .args = {"-s", registry_->base_url() + "/schemas/ids/" + std::to_string(id)}},
        10s);
    EXPECT_TRUE(r.ok());
    if (!r.ok()) return "";
    boost::system::error_code ec;
    auto v = boost::json::parse(r->out, ec);
    EXPECT_FALSE(ec) << r->out;
    if (ec || !v.is_object() || !v.as_object().contains("schema")) return "";
    return schemas_[id] = std::string(v.at("schema").as_string());
  }

  // The value as the format says it was written; InvalidArgument when it does not decode or
  // does not follow its schema.
  Result<boost::json::object> Decode(const std::string& bytes, int32_t* schema_id) {
    std::string json = bytes;
    *schema_id = -1;
    if (format() != "json_typed") {
      *schema_id = SchemaId(bytes);
      if (*schema_id < 0) return Status::InvalidArgument("value not framed");
      const std::string schema = SchemaById(*schema_id);
      if (schema.empty()) return Status::InvalidArgument("schema id unknown to the registry");
      json = bytes.substr(5);
      if (format() == "avro") {
        SNOWCAR_ASSIGN_OR_RETURN(json, AvroJson(schema, json));
      } else if (format() == "protobuf") {
        // libprotobuf reads it against the registered .proto text (an absent field is null).
        SNOWCAR_ASSIGN_OR_RETURN(json, schema_registry::ProtobufSchemaToJson(schema, json));
      } else {
        boost::system::error_code ec;
        auto v = boost::json::parse(json, ec);
        if (ec || !v.is_object()) return Status::InvalidArgument("value is not an object: " + json);
        if (std::string why = CheckAgainstJsonSchema(schema, v.as_object()); !why.empty()) {
          return Status::InvalidArgument("value " + json + " does not follow its schema: " + why);
        }
      }
    }
    boost::system::error_code ec;
    auto v = boost::json::parse(json, ec);
    if (ec || !v.is_object()) return Status::InvalidArgument("value is not an object: " + json);
    return v.as_object();
  }

  std::unique_ptr<registry::RegistryServer> registry_;
  std::map<int32_t, std::string> schemas_;
};

TEST_P(SourceTypedDeletes, DeletesCarryTheRowsKeyBytesAndAValueOfItsSchema) {
  const auto& [mode, fmt] = GetParam();
  const bool audit = mode != "reconcile";
  constexpr int kPartitions = 3;
  registry_ = std::make_unique<registry::RegistryServer>(registry::RegistryServerOptions{});
  ASSERT_TRUE(registry_->Start().ok());
  ASSERT_TRUE(broker().CreateTopic(topic_, kPartitions).ok());
  const int64_t base = NowS() - 600;
  std::vector<emulator::Fields> rows;
  std::vector<std::string> ids;
  for (int i = 0; i < 6; ++i) {
    char id[33];
    std::snprintf(id, sizeof(id), "%08x%024x", static_cast<unsigned>(i + 1) * 2654435761u,
                  static_cast<unsigned>(0xde1 + i));
    ids.push_back(id);
    rows.push_back({{"sys_id", id},
                    {"sys_updated_on", FormatSnowTimestamp(base + i)},
                    {"sys_created_on", FormatSnowTimestamp(base)},
                    {"short_description", "row " + std::to_string(i)},
                    {"priority", std::to_string(1 + i % 5)},
                    {"active", i % 2 == 0 ? "true" : "false"},
                    {"reassignment_count", std::to_string(i)}});
  }
  ASSERT_TRUE(emu_->store().Load("incident", rows).ok());
  props_["value.format"] = fmt;
  props_["key.format"] = fmt;
  props_["schema.registry.url"] = registry_->base_url();
  props_["snow.table.inc.deletes"] = mode;
  props_["snow.source.emit.tombstones"] = "true";
  if (audit) props_["snow.table.inc.deletes.last.row"] = "true";
  if (mode != "audit") props_["snow.table.inc.reconcile.interval.ms"] = "1000";
  Start();

  // The UPSERTs first: the key bytes each row is written under.
  std::map<std::string, std::string> upsert_key;  // sys_id -> key bytes
  std::map<std::string, int32_t> upsert_partition;
  int32_t upsert_schema = -1;
  ASSERT_TRUE(testsupport::WaitFor(
      [&] {
        for (const RawRecord& r : ReadRaw(bootstrap(), topic_, kPartitions)) {
          if (r.Op() != "UPSERT" || !r.value || !r.key) continue;
          auto v = Decode(*r.value, &upsert_schema);
          if (!v.ok()) continue;
          const std::string id(Field(*v, "sys_id").as_string());
          upsert_key[id] = *r.key;
          upsert_partition[id] = r.partition;
        }
        return upsert_key.size() == ids.size();
      },
      60s, 200ms))
      << "UPSERTs seen: " << upsert_key.size();

  const std::vector<std::string> deleted = {ids[0], ids[3], ids[4]};
  for (const std::string& id : deleted) ASSERT_TRUE(emu_->store().Delete("incident", id).ok());

  // Each deletion: a DELETE, then its tombstone, both under the row's UPSERT key bytes.
  std::vector<RawRecord> all;
  const bool done = testsupport::WaitFor(
      [&] {
        all = ReadRaw(bootstrap(), topic_, kPartitions);
        for (const std::string& id : deleted) {
          bool del = false;
          bool tomb = false;
          bool from_audit = !audit;  // with the audit trail, its DELETE (carrying the last row)
          for (const RawRecord& r : all) {
            if (r.key != upsert_key.at(id)) continue;
            del = del || r.Op() == "DELETE";
            from_audit = from_audit ||
                         (r.Op() == "DELETE" && r.Header("snow.source.delete.found.by").empty());
            tomb = tomb || (del && r.Op() == "TOMBSTONE" && !r.value);
          }
          if (!del || !tomb || !from_audit) return false;
        }
        return true;
      },
      60s, 250ms);
  ASSERT_TRUE(done) << "not every deletion reached the topic as a DELETE and a tombstone under "
                       "the row's key bytes; records: "
                    << all.size() << ", table: " << boost::json::serialize(Table());

  // Every record of the topic: keys of one row are one byte string, on one partition.
  std::map<std::string, std::string> id_of_key;
  for (const auto& [id, key] : upsert_key) id_of_key[key] = id;
  int audit_deletes = 0;
  for (const RawRecord& r : all) {
    ASSERT_TRUE(r.key.has_value());
    auto known = id_of_key.find(*r.key);
    ASSERT_NE(known, id_of_key.end()) << r.Op() << " under a key no UPSERT has";
    const std::string& id = known->second;
    EXPECT_EQ(r.partition, upsert_partition.at(id)) << r.Op() << " of " << id;
    // The key itself is the format's: the sys_id framed (avro, json_schema) or plain JSON.
    EXPECT_NE(r.key->find(id), std::string::npos);
    EXPECT_EQ(SchemaId(*r.key) >= 0, fmt != "json_typed") << "key framing of " << r.Op();
    if (r.Op() != "DELETE") continue;
    int32_t schema = -1;
    auto v = Decode(*r.value, &schema);
    ASSERT_TRUE(v.ok()) << "DELETE of " << id << ": " << v.status().ToString();
    EXPECT_EQ(schema, upsert_schema) << "the DELETE follows the schema of the row's UPSERTs";
    EXPECT_EQ(Field(*v, "sys_id").as_string(), id);
    if (r.Header("snow.source.delete.found.by") == "reconciliation") {
      // Gone when the sweep looked: no last row, and when only that is known, as a header.
      EXPECT_TRUE(Field(*v, "priority").is_null()) << boost::json::serialize(*v);
      EXPECT_FALSE(r.Header("snow.source.delete.found_gone_at").empty());
      continue;
    }
    ++audit_deletes;
    // The last row, typed as the UPSERTs are: priority an integer, active a boolean.
    const int i = static_cast<int>(std::find(ids.begin(), ids.end(), id) - ids.begin());
    ASSERT_TRUE(Field(*v, "priority").is_int64()) << boost::json::serialize(*v);
    EXPECT_EQ(Field(*v, "priority").as_int64(), 1 + i % 5);
    EXPECT_EQ(Field(*v, "active").as_bool(), i % 2 == 0);
    EXPECT_EQ(Field(*v, "short_description").as_string(), "row " + std::to_string(i));
    EXPECT_FALSE(r.Header("snow.source.delete.deleted_at").empty());
    EXPECT_FALSE(r.Header("snow.source.delete.audit_sys_id").empty());
  }
  if (audit) {
    EXPECT_GE(audit_deletes, static_cast<int>(deleted.size()));
  } else {
    EXPECT_EQ(audit_deletes, 0);
  }
  StopGracefully();
  registry_->Stop();
}

INSTANTIATE_TEST_SUITE_P(
    EveryModeAndFormat, SourceTypedDeletes,
    ::testing::Combine(::testing::Values("audit", "reconcile", "audit+reconcile"),
                       ::testing::Values("json_typed", "avro", "json_schema", "protobuf")),
    [](const ::testing::TestParamInfo<Case>& info) {
      std::string name = std::get<0>(info.param) + "_" + std::get<1>(info.param);
      std::replace(name.begin(), name.end(), '+', '_');
      return name;
    });

}  // namespace
}  // namespace snowcar::source::it
