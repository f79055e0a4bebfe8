// SPDX-License-Identifier: Apache-2.0
// Deterministic, realistic rows for the emulator's tables.
#include "snowcar/testbed/emulator/data_gen.h"

#include <algorithm>
#include <array>
#include <random>

namespace snowcar::emulator {
namespace {

constexpr std::array<const char*, 12> kFirst = {"Abel",  "Beth", "Chen", "Dana",  "Emeka", "Fatima",
                                                "Gösta", "Hiro", "Ines", "Jamal", "Karin", "Luis"};
constexpr std::array<const char*, 10> kLast = {"Tuter",  "Anglin", "Ng",   "O'Brien", "Okafor",
                                               "Rahman", "Öberg",  "Sato", "Duarte",  "Weiß"};
constexpr std::array<const char*, 8> kGroups = {
    "Service Desk", "Network",      "Database",          "Hardware",
    "Software",     "CAB Approval", "Change Management", "Field Services"};
constexpr std::array<const char*, 12> kProblems = {"Unable to connect to email",
                                                   "VPN drops every few minutes",
                                                   "Printer on floor 3 jams",
                                                   "Password reset for \"finance\" share",
                                                   "Laptop überhitzt beim Start",
                                                   "Slow response from CRM",
                                                   "Cannot access SAP \\ payroll module",
                                                   "Disk space low on file server",
                                                   "Outlook crashes on launch",
                                                   "Wi-Fi unreliable in building B",
                                                   "Request for new monitor",
                                                   "Database backup job failed"};
constexpr std::array<const char*, 6> kDetail = {
    "User reports the issue started after the last update.",
    "Steps:\n1. Open the app\n2. Log in\n3. Error appears",
    "Affects the whole team; workaround: restart the client.",
    "Error text: \"connection reset by peer\"\tcode=104",
    "Seen on several machines — intermittent.",
    ""};

constexpr size_t kBatchRows = 50000;

class Gen {
 public:
  Gen(const TableSchema& schema, const GenOptions& o, const Clock& clock, const GenReferences& refs)
      : s_(schema), o_(o), refs_(refs), now_(clock.NowSeconds()) {
    uint64_t h = 1469598103934665603ULL;
    for (char c : schema.name()) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
    rng_.seed(o.seed ^ h);
  }

  // The next up to `n` rows of the `o_.rows` to generate; empty when all were generated.
  std::vector<Fields> Next(size_t n) {
    std::vector<Fields> rows;
    const size_t end = std::min(o_.rows, next_ + n);
    rows.reserve(end - next_);
    for (; next_ < end; ++next_) rows.push_back(One(next_));
    return rows;
  }

 private:
  uint64_t U(uint64_t n) { return n == 0 ? 0 : rng_() % n; }
  bool Chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }

  std::string Hex32() {
    static constexpr char kHex[] = "0123456789abcdef";
    std::string id(32, '0');
    for (size_t i = 0; i < 32; i += 16) {
      uint64_t bits = rng_();
      for (size_t k = 0; k < 16; ++k, bits >>= 4) id[i + k] = kHex[bits & 0xf];
    }
    return id;
  }

  const std::string& PickId(const std::vector<std::string>& ids) {
    static const std::string kEmpty;
    return ids.empty() ? kEmpty : ids[U(ids.size())];
  }

  int64_t NextUpdated() {
    const double reuse = o_.rows_per_second > 1 ? 1.0 - 1.0 / o_.rows_per_second : 0;
    if (have_last_ && Chance(reuse)) return last_ts_;
    const int64_t span = std::max<int64_t>(o_.span_seconds, 0);
    last_ts_ = now_ - span + static_cast<int64_t>(U(static_cast<uint64_t>(span) + 1));
    have_last_ = true;
    return last_ts_;
  }

  Fields One(size_t i) {
    Fields f;
    const int64_t updated = NextUpdated();
    const int64_t created =
        updated - static_cast<int64_t>(Chance(0.4) ? 0 : U(uint64_t{30} * 86400));
    const std::string created_by = Chance(0.7) ? "admin" : "integration.user";
    f.emplace_back("sys_id", Hex32());
    f.emplace_back("sys_created_on", FormatSnowTimestamp(created));
    f.emplace_back("sys_created_by", created_by);
    f.emplace_back("sys_updated_on", FormatSnowTimestamp(updated));
    f.emplace_back("sys_updated_by", created == updated ? created_by : "system");
    f.emplace_back("sys_mod_count", created == updated ? "0" : std::to_string(1 + U(6)));
    const std::string first = kFirst[i % kFirst.size()];
    const std::string last = kLast[(i / kFirst.size()) % kLast.size()];
    for (size_t k = TableSchema::kFirstTableField; k < s_.size(); ++k) {
      const FieldDef& d = s_.field(k);
      std::string v = Value(d, i, created, updated, first, last);
      if (!v.empty() || d.default_value.empty()) f.emplace_back(d.name, std::move(v));
    }
    return f;
  }

  std::string Value(const FieldDef& d, size_t i, int64_t created, int64_t updated,
                    const std::string& first, const std::string& last) {
    const std::string& n = d.name;
    const std::string suffix = std::to_string(i + 1);
    if (n == "number") {
      if (s_.number_prefix().empty()) return "";
      std::string digits = std::to_string(10001 + i);
      if (digits.size() < 7) digits.insert(0, 7 - digits.size(), '0');
      return s_.number_prefix() + digits;
    }
    if (n == "sys_domain") return "global";
    if (n == "sys_domain_path") return "/";
    if (s_.name() == "sys_user") {
      std::string user = first + "." + last;
      for (char& c : user) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
      user += suffix;
      if (n == "user_name") return user;
      if (n == "first_name") return first;
      if (n == "last_name") return last;
      if (n == "name") return first + " " + last + " " + suffix;
      if (n == "email") return user + "@example.com";
      if (n == "employee_number") return std::string("E").append(std::to_string(100000 + i));
    }
    if (n == "name") {
      if (s_.name() == "sys_user_group") {
        std::string g = kGroups[i % kGroups.size()];
        return i < kGroups.size() ? g : g + " " + suffix;
      }
      return "srv-" + std::string(i % 3 == 0 ? "db" : "app") + "-" + suffix;
    }
    if (n == "short_description")
      return std::string(kProblems[U(kProblems.size())]) + " #" + suffix;
    if (n == "description") return kDetail[U(kDetail.size())];
    if (n == "correlation_id") return Chance(0.3) ? "ext-" + Hex32().substr(0, 12) : "";
    switch (d.kind) {
      case FieldKind::kReference:
        if (d.reference_table == "sys_user") return Chance(0.15) ? "" : PickId(refs_.users);
        if (d.reference_table == "sys_user_group") return Chance(0.1) ? "" : PickId(refs_.groups);
        if (d.reference_table == "cmdb_ci") return Chance(0.3) ? "" : PickId(refs_.cis);
        return "";
      case FieldKind::kChoice:
        if (d.choices.empty() || (d.default_value.empty() && Chance(0.2))) return "";
        return d.choices[U(d.choices.size())].value;
      case FieldKind::kDateTime:
        if (n == "opened_at") return FormatSnowTimestamp(created);
        if (Chance(0.6)) return "";
        return FormatSnowTimestamp(
            created + static_cast<int64_t>(U(static_cast<uint64_t>(updated - created) + 1)));
      case FieldKind::kInteger:
        if (n == "calendar_stc") return Chance(0.5) ? "" : std::to_string(U(250000));
        return std::to_string(U(4));
      case FieldKind::kBoolean:
        return Chance(0.8) ? (d.default_value.empty() ? "false" : d.default_value)
                           : (d.default_value == "true" ? "false" : "true");
      case FieldKind::kString:
        break;
    }
    if (!d.default_value.empty()) return d.default_value;
    if (Chance(0.6)) return "";
    return n + " " + suffix;
  }

  const TableSchema& s_;
  const GenOptions& o_;
  const GenReferences& refs_;
  const int64_t now_;
  std::mt19937_64 rng_;
  int64_t last_ts_ = 0;
  bool have_last_ = false;
  size_t next_ = 0;
};

Result<std::vector<std::string>> Ids(const TableStore& store, std::string_view table) {
  SNOWCAR_ASSIGN_OR_RETURN(auto rows, store.Snapshot(table));
  std::vector<std::string> ids;
  ids.reserve(rows.size());
  for (const RowPtr& r : rows) ids.emplace_back(r->sys_id());
  return ids;
}

}  // namespace

std::vector<Fields> GenerateRows(const TableSchema& schema, const GenOptions& options,
                                 const Clock& clock, const GenReferences& refs) {
  return Gen(schema, options, clock, refs).Next(options.rows);
}

Status Populate(TableStore& store, std::string_view table, const GenOptions& options) {
  struct Support {
    const char* table;
    size_t rows;
  };
  const Support support[] = {
      {"sys_user", options.users}, {"sys_user_group", options.groups}, {"cmdb_ci", options.cis}};
  GenReferences refs;
  for (const Support& s : support) {
    SNOWCAR_RETURN_IF_ERROR(store.CreateTable(s.table));
    if (s.table == table) continue;
    if (store.Count(s.table) == 0 && s.rows > 0) {
      GenOptions o = options;
      o.rows = s.rows;
      GenReferences none;
      SNOWCAR_RETURN_IF_ERROR(
          store.Load(s.table, GenerateRows(*store.Schema(s.table), o, store.clock(), none)));
    }
  }
  SNOWCAR_ASSIGN_OR_RETURN(refs.users, Ids(store, "sys_user"));
  SNOWCAR_ASSIGN_OR_RETURN(refs.groups, Ids(store, "sys_user_group"));
  SNOWCAR_ASSIGN_OR_RETURN(refs.cis, Ids(store, "cmdb_ci"));
  SNOWCAR_RETURN_IF_ERROR(store.CreateTable(table));
  // In batches, so a million rows never exist twice in memory (as Fields and as rows).
  auto schema = store.Schema(table);
  Gen gen(*schema, options, store.clock(), refs);
  for (auto batch = gen.Next(kBatchRows); !batch.empty(); batch = gen.Next(kBatchRows)) {
    SNOWCAR_RETURN_IF_ERROR(store.Load(table, batch));
  }
  return Status::Ok();
}

}  // namespace snowcar::emulator
