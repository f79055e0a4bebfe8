// SPDX-License-Identifier: Apache-2.0
#include "exclusions.h"

#include <algorithm>

namespace snowcar::contract {
namespace {

bool In(const std::vector<std::string>& list, const std::string& v) {
  return std::find(list.begin(), list.end(), v) != list.end();
}

// Whether (dimension a = va, dimension b = vb), in either order, is known break `k`.
bool Matches(const KnownBreak& k, const std::string& a, const std::string& va, const std::string& b,
             const std::string& vb) {
  if (k.dim_b == "*") {  // the value breaks with anything: it never runs
    return (k.dim_a == a && In(k.values_a, va)) || (k.dim_a == b && In(k.values_a, vb));
  }
  return (k.dim_a == a && In(k.values_a, va) && k.dim_b == b && In(k.values_b, vb)) ||
         (k.dim_a == b && In(k.values_a, vb) && k.dim_b == a && In(k.values_b, va));
}

}  // namespace

const std::vector<KnownBreak>& KnownBreaks() {
  static const std::vector<KnownBreak> all = {};
  return all;
}

const std::vector<KnownBreak>& KnownRefusals() {
  static const std::vector<KnownBreak> all = {
      {"format",
       {"json_typed", "avro", "json_schema"},
       "envelope",
       {"true"},
       "the change-event envelope wraps untyped JSON only",
       {"snow.source.emit.envelope", "snow.source.schema.mode"}},
      // Exactly-once covers a poller's page and its cursor (src/source/exactly_once/): the
      // audit stream is a poller with a transaction of its own, so deletes=audit runs; a
      // reconciliation's DELETEs and id set, and a handoff between replicas, are outside any
      // transaction, and config check says so.
      {"exactly_once",
       {"on"},
       "deletes",
       {"reconcile", "audit+reconcile"},
       "a reconciliation's DELETEs and the id set are not written in a transaction",
       {"exactly.once.source.support", "deletes"}},
      {"exactly_once",
       {"on"},
       "replicas",
       {"2"},
       "a table's handoff between replicas (source.group.id) is outside its transactions",
       {"exactly.once.source.support", "source.group.id"}},
  };
  return all;
}

namespace {
PairFilter Without(const std::vector<Dimension>& dims, bool refusals_too) {
  return [&dims, refusals_too](int a, int va, int b, int vb) {
    for (const auto* list : {&KnownBreaks(), &KnownRefusals()}) {
      if (list == &KnownRefusals() && !refusals_too) continue;
      for (const auto& k : *list) {
        if (Matches(k, dims[a].name, dims[a].values[va], dims[b].name, dims[b].values[vb])) {
          return false;
        }
      }
    }
    return true;
  };
}
}  // namespace

PairFilter WithoutKnownBreaks(const std::vector<Dimension>& dims) { return Without(dims, false); }

PairFilter Runnable(const std::vector<Dimension>& dims) { return Without(dims, true); }

std::vector<Combination> RefusalCases(const std::vector<Dimension>& dims) {
  auto index = [&](const std::string& dim, const std::string& value) {
    for (size_t d = 0; d < dims.size(); ++d) {
      if (dims[d].name != dim) continue;
      for (size_t v = 0; v < dims[d].values.size(); ++v) {
        if (dims[d].values[v] == value)
          return std::make_pair(static_cast<int>(d), static_cast<int>(v));
      }
    }
    return std::make_pair(-1, -1);
  };
  std::vector<Combination> out;
  for (const auto& k : KnownRefusals()) {
    for (const auto& va : k.values_a) {
      for (const auto& vb : k.values_b) {
        Combination c(dims.size(), 0);
        const auto [da, ia] = index(k.dim_a, va);
        const auto [db, ib] = index(k.dim_b, vb);
        if (da < 0 || db < 0) continue;
        c[da] = ia;
        c[db] = ib;
        out.push_back(c);
      }
    }
  }
  return out;
}

const KnownBreak* ExpectedRefusal(const std::vector<Dimension>& dims, const Combination& c) {
  for (size_t a = 0; a < c.size(); ++a) {
    for (size_t b = a + 1; b < c.size(); ++b) {
      for (const auto& k : KnownRefusals()) {
        if (Matches(k, dims[a].name, dims[a].values[c[a]], dims[b].name, dims[b].values[c[b]])) {
          return &k;
        }
      }
    }
  }
  return nullptr;
}

std::string RefusalMismatch(const std::vector<Dimension>& dims, const Combination& c, bool refused,
                            const std::string& text) {
  const KnownBreak* k = ExpectedRefusal(dims, c);
  if (k == nullptr) {
    if (!refused) return "";
    return "config check refused a combination KnownRefusals() does not list (" + text +
           "): add the pair there with its reason (tests/contract/exclusions.cpp), or make "
           "the combination work";
  }
  if (!refused) {
    return "config check accepted a combination KnownRefusals() says it refuses (" + k->reason +
           "): if it works now, take the pair out of KnownRefusals() so it runs again";
  }
  std::string missing;
  for (const auto& key : k->keys) {
    if (text.find(key) == std::string::npos) missing += (missing.empty() ? "" : ", ") + key;
  }
  if (missing.empty()) return "";
  return "config check's refusal does not name " + missing + ": " + text;
}

std::string BreakReason(const std::vector<Dimension>& dims, const Combination& c) {
  for (size_t a = 0; a < c.size(); ++a) {
    for (size_t b = a + 1; b < c.size(); ++b) {
      for (const auto& k : KnownBreaks()) {
        if (Matches(k, dims[a].name, dims[a].values[c[a]], dims[b].name, dims[b].values[c[b]])) {
          return k.reason;
        }
      }
    }
  }
  return "";
}

}  // namespace snowcar::contract
