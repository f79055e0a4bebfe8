// SPDX-License-Identifier: Apache-2.0
// Avro schema resolution as a yes/no check on the schemas' JSON (compatibility.h). avro-c's
// own resolver cannot serve here: it refuses a reader field that the writer lacks even when
// the field has a default, which is the very change BACKWARD compatibility allows.
#include <boost/json.hpp>
#include <map>
#include <set>

#include "compatibility.h"

namespace snowcar::registry {
namespace {

namespace json = boost::json;

std::string Str(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return (v != nullptr && v->is_string()) ? std::string(v->as_string()) : std::string();
}

// Named types by full name and by short name, collected from one schema.
class Names {
 public:
  explicit Names(const json::value& root) { Collect(root, ""); }

  const json::value* Find(const std::string& name) const {
    auto it = by_name_.find(name);
    if (it == by_name_.end()) it = by_name_.find(Short(name));
    return it == by_name_.end() ? nullptr : it->second;
  }

 private:
  static std::string Short(const std::string& name) {
    const size_t dot = name.rfind('.');
    return dot == std::string::npos ? name : name.substr(dot + 1);
  }

  void Collect(const json::value& v, std::string ns) {
    if (v.is_array()) {
      for (const auto& b : v.as_array()) Collect(b, ns);
      return;
    }
    if (!v.is_object()) return;
    const auto& o = v.as_object();
    const std::string type = Str(o, "type");
    if (type == "record" || type == "error" || type == "enum" || type == "fixed") {
      std::string name = Str(o, "name");
      if (std::string own = Str(o, "namespace"); !own.empty()) ns = own;
      if (name.find('.') == std::string::npos && !ns.empty()) name = ns + "." + name;
      if (name.find('.') != std::string::npos) ns = name.substr(0, name.rfind('.'));
      by_name_[name] = &v;
      by_name_.try_emplace(Short(name), &v);
    }
    if (const auto* fields = o.if_contains("fields"); fields && fields->is_array()) {
      for (const auto& f : fields->as_array()) {
        if (f.is_object()) {
          if (const auto* t = f.as_object().if_contains("type")) Collect(*t, ns);
        }
      }
    }
    for (const char* key : {"items", "values"}) {
      if (const auto* t = o.if_contains(key)) Collect(*t, ns);
    }
    if (const auto* t = o.if_contains("type"); t && !t->is_string()) Collect(*t, ns);
  }

  std::map<std::string, const json::value*> by_name_;
};

class Checker {
 public:
  Checker(const json::value& reader, const json::value& writer)
      : reader_names_(reader), writer_names_(writer) {}

  void Check(const json::value& r, const json::value& w, const std::string& path) {
    const json::value& reader = Resolve(r, reader_names_);
    const json::value& writer = Resolve(w, writer_names_);
    // Recursive named types: a pair under check is assumed to match (the check of its first
    // visit decides).
    if (!seen_.insert({&reader, &writer}).second) return;

    if (writer.is_array()) {  // writer union: each branch must be readable
      for (const auto& branch : writer.as_array()) Check(reader, branch, path);
      return;
    }
    if (reader.is_array()) {  // reader union: some branch must read the writer's type
      for (const auto& branch : reader.as_array()) {
        Checker trial(*this);
        trial.problems_.clear();
        trial.Check(branch, writer, path);
        if (trial.problems_.empty()) return;
      }
      Problem(path, "the reader's union has no branch for the writer's " + TypeName(writer));
      return;
    }
    const std::string rt = TypeName(reader);
    const std::string wt = TypeName(writer);
    if (rt != wt) {
      if (!Promotes(wt, rt)) Problem(path, "type changed from " + wt + " to " + rt);
      return;
    }
    if (!reader.is_object()) return;  // same primitive
    const auto& ro = reader.as_object();
    const auto& wo = writer.as_object();
    if (rt == "record" || rt == "error") {
      CheckName(ro, wo, path);
      CheckRecord(ro, wo, path);
    } else if (rt == "enum") {
      CheckName(ro, wo, path);
      CheckEnum(ro, wo, path);
    } else if (rt == "fixed") {
      CheckName(ro, wo, path);
      const auto* rs = ro.if_contains("size");
      const auto* ws = wo.if_contains("size");
      if (rs == nullptr || ws == nullptr || *rs != *ws) Problem(path, "fixed size changed");
    } else if (rt == "array") {
      Check(ro.at("items"), wo.at("items"), path + "[]");
    } else if (rt == "map") {
      Check(ro.at("values"), wo.at("values"), path + "{}");
    }
  }

  std::string Result() const {
    std::string out;
    for (const auto& p : problems_) out += (out.empty() ? "" : "\n") + p;
    return out;
  }

 private:
  // A type name or named reference -> the type's node; {"type": "int", ...} -> itself.
  static const json::value& Resolve(const json::value& v, const Names& names) {
    if (v.is_string()) {
      if (const json::value* named = names.Find(std::string(v.as_string()))) return *named;
    }
    if (v.is_object()) {
      const auto* t = v.as_object().if_contains("type");
      if (t != nullptr && !t->is_string()) return Resolve(*t, names);
    }
    return v;
  }

  static std::string TypeName(const json::value& v) {
    if (v.is_string()) return std::string(v.as_string());
    if (v.is_object()) return Str(v.as_object(), "type");
    if (v.is_array()) return "union";
    return "?";
  }

  static bool Promotes(const std::string& from, const std::string& to) {
    if (from == "int") return to == "long" || to == "float" || to == "double";
    if (from == "long") return to == "float" || to == "double";
    if (from == "float") return to == "double";
    if (from == "string") return to == "bytes";
    if (from == "bytes") return to == "string";
    return false;
  }

  void CheckName(const json::object& r, const json::object& w, const std::string& path) {
    auto short_name = [](std::string n) {
      const size_t dot = n.rfind('.');
      return dot == std::string::npos ? n : n.substr(dot + 1);
    };
    const std::string rn = short_name(Str(r, "name"));
    const std::string wn = short_name(Str(w, "name"));
    if (rn == wn) return;
    if (const auto* aliases = r.if_contains("aliases"); aliases && aliases->is_array()) {
      for (const auto& a : aliases->as_array()) {
        if (a.is_string() && short_name(std::string(a.as_string())) == wn) return;
      }
    }
    Problem(path, "name changed from " + wn + " to " + rn);
  }

  void CheckRecord(const json::object& r, const json::object& w, const std::string& path) {
    std::map<std::string, const json::object*> writer_fields;
    if (const auto* fs = w.if_contains("fields"); fs && fs->is_array()) {
      for (const auto& f : fs->as_array()) {
        if (f.is_object()) writer_fields[Str(f.as_object(), "name")] = &f.as_object();
      }
    }
    const auto* fs = r.if_contains("fields");
    if (fs == nullptr || !fs->is_array()) return;
    for (const auto& f : fs->as_array()) {
      if (!f.is_object()) continue;
      const auto& rf = f.as_object();
      const std::string name = Str(rf, "name");
      const std::string field_path = path.empty() ? name : path + "." + name;
      const json::object* wf = nullptr;
      if (auto it = writer_fields.find(name); it != writer_fields.end()) wf = it->second;
      if (wf == nullptr) {
        if (const auto* aliases = rf.if_contains("aliases"); aliases && aliases->is_array()) {
          for (const auto& a : aliases->as_array()) {
            if (!a.is_string()) continue;
            if (auto it = writer_fields.find(std::string(a.as_string()));
                it != writer_fields.end()) {
              wf = it->second;
            }
          }
        }
      }
      if (wf == nullptr) {
        if (!rf.contains("default")) {
          Problem(field_path, "field added without a default (data written before has none)");
        }
        continue;
      }
      if (rf.contains("type") && wf->contains("type")) {
        Check(rf.at("type"), wf->at("type"), field_path);
      }
    }
  }

  void CheckEnum(const json::object& r, const json::object& w, const std::string& path) {
    if (r.contains("default")) return;
    std::set<std::string> symbols;
    if (const auto* s = r.if_contains("symbols"); s && s->is_array()) {
      for (const auto& x : s->as_array()) {
        if (x.is_string()) symbols.insert(std::string(x.as_string()));
      }
    }
    if (const auto* s = w.if_contains("symbols"); s && s->is_array()) {
      for (const auto& x : s->as_array()) {
        if (x.is_string() && symbols.count(std::string(x.as_string())) == 0) {
          Problem(path, "enum symbol " + std::string(x.as_string()) +
                            " removed, and the reader's enum has no default");
        }
      }
    }
  }

  void Problem(const std::string& path, const std::string& what) {
    problems_.push_back((path.empty() ? std::string("(top level)") : path) + ": " + what);
  }

  const Names reader_names_;
  const Names writer_names_;
  std::set<std::pair<const json::value*, const json::value*>> seen_;
  std::vector<std::string> problems_;
};

}  // namespace

std::string AvroIncompatibilities(const json::value& reader, const json::value& writer) {
  Checker checker(reader, writer);
  checker.Check(reader, writer, "");
  return checker.Result();
}

}  // namespace snowcar::registry
