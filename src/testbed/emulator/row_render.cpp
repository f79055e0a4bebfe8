// SPDX-License-Identifier: Apache-2.0
// Rows → Table API JSON, appended to a std::string without building a JSON DOM.
#include "snowcar/testbed/emulator/row_render.h"

#include "snowcar/common/json_escape.h"
#include "snowcar/common/time.h"

namespace snowcar::emulator {
namespace {

void AppendLink(const RenderOptions& o, const std::string& table, std::string_view id,
                std::string* out) {
  out->append("\"link\":\"");
  AppendJsonEscaped(*out, o.link_base);
  out->append(table);
  out->push_back('/');
  // The instance puts the stored value in the link unencoded; only JSON escaping applies.
  AppendJsonEscaped(*out, id);
  out->push_back('"');
}

// "102197" → "102,197"; other text unchanged.
std::string WithThousands(std::string_view v) {
  size_t start = (!v.empty() && v[0] == '-') ? 1 : 0;
  if (v.size() == start) return std::string(v);
  for (size_t i = start; i < v.size(); ++i) {
    if (v[i] < '0' || v[i] > '9') return std::string(v);
  }
  std::string out(v.substr(0, start));
  const size_t digits = v.size() - start;
  for (size_t i = 0; i < digits; ++i) {
    if (i > 0 && (digits - i) % 3 == 0) out.push_back(',');
    out.push_back(v[start + i]);
  }
  return out;
}

// The display value of one field as JSON (a string literal, or null for an empty choice).
void AppendDisplayValue(const TableSchema& schema, size_t index, std::string_view v,
                        const RenderOptions& o, const DisplayLookup* lookup, std::string* out) {
  const FieldDef& def = schema.field(index);
  if (index == TableSchema::kSysClassName) {
    AppendJsonString(v == schema.name() ? std::string_view(schema.label()) : v, out);
    return;
  }
  switch (def.kind) {
    case FieldKind::kReference:
      AppendJsonString(v.empty() || lookup == nullptr ? std::string()
                                                      : lookup->DisplayOf(def.reference_table, v),
                       out);
      return;
    case FieldKind::kChoice: {
      if (v.empty()) {
        out->append("null");
        return;
      }
      const std::string* label = def.ChoiceLabel(v);
      AppendJsonString(label != nullptr ? std::string_view(*label) : v, out);
      return;
    }
    case FieldKind::kInteger:
      AppendJsonString(WithThousands(v), out);
      return;
    case FieldKind::kDateTime: {
      auto t = ParseSnowTimestamp(v);
      if (v.empty() || !t.ok() || o.display_utc_offset_seconds == 0) {
        AppendJsonString(v, out);
      } else {
        AppendJsonString(FormatSnowTimestamp(*t + o.display_utc_offset_seconds), out);
      }
      return;
    }
    default:
      AppendJsonString(v, out);
  }
}

// The projected fields of one render call with their keys pre-spelled: `,"name":` (no comma
// before the first), so a plain field costs three appends.
struct Layout {
  std::vector<size_t> fields;
  std::vector<std::string> keys;
};

Layout MakeLayout(const TableSchema& schema, const std::vector<size_t>& field_indices) {
  Layout l;
  if (field_indices.empty()) {
    for (size_t i = 0; i < schema.size(); ++i) l.fields.push_back(i);
  } else {
    for (size_t i : field_indices) {
      if (i < schema.size()) l.fields.push_back(i);
    }
  }
  for (size_t k = 0; k < l.fields.size(); ++k) {
    std::string key = k == 0 ? "\"" : ",\"";
    key += schema.field(l.fields[k]).name;  // [a-z0-9_]: nothing to escape
    key += "\":";
    l.keys.push_back(std::move(key));
  }
  return l;
}

void AppendValue(const TableSchema& schema, size_t index, std::string_view v,
                 const RenderOptions& o, const DisplayLookup* lookup, std::string* out) {
  const FieldDef& def = schema.field(index);
  const bool ref = def.kind == FieldKind::kReference;
  switch (o.display_value) {
    case DisplayValue::kFalse:
      if (ref && !v.empty() && !o.exclude_reference_link) {
        out->push_back('{');
        AppendLink(o, def.reference_table, v, out);
        out->append(",\"value\":");
        AppendJsonString(v, out);
        out->push_back('}');
      } else {
        AppendJsonString(v, out);
      }
      return;
    case DisplayValue::kTrue:
      if (ref && !v.empty() && !o.exclude_reference_link) {
        out->append("{\"display_value\":");
        AppendDisplayValue(schema, index, v, o, lookup, out);
        out->push_back(',');
        AppendLink(o, def.reference_table, v, out);
        out->push_back('}');
      } else {
        AppendDisplayValue(schema, index, v, o, lookup, out);
      }
      return;
    case DisplayValue::kAll:
      out->append("{\"display_value\":");
      AppendDisplayValue(schema, index, v, o, lookup, out);
      if (ref && !v.empty() && !o.exclude_reference_link) {
        out->push_back(',');
        AppendLink(o, def.reference_table, v, out);
      }
      out->append(",\"value\":");
      AppendJsonString(v, out);
      out->push_back('}');
      return;
  }
}

void AppendRow(const TableSchema& schema, const Row& row, const Layout& layout,
               const RenderOptions& o, const DisplayLookup* lookup, std::string* out) {
  out->push_back('{');
  const bool raw = o.display_value == DisplayValue::kFalse;
  for (size_t k = 0; k < layout.fields.size(); ++k) {
    const size_t i = layout.fields[k];
    const std::string_view v = row.Get(i);
    out->append(layout.keys[k]);
    if (raw &&
        (schema.field(i).kind != FieldKind::kReference || v.empty() || o.exclude_reference_link)) {
      // The common case: a plain JSON string.
      out->push_back('"');
      AppendJsonEscaped(*out, v);
      out->push_back('"');
    } else {
      AppendValue(schema, i, v, o, lookup, out);
    }
  }
  out->push_back('}');
}

}  // namespace

void AppendJsonString(std::string_view text, std::string* out) {
  out->push_back('"');
  AppendJsonEscaped(*out, text);
  out->push_back('"');
}

void AppendRowJson(const TableSchema& schema, const Row& row,
                   const std::vector<size_t>& field_indices, const RenderOptions& options,
                   const DisplayLookup* lookup, std::string* out) {
  AppendRow(schema, row, MakeLayout(schema, field_indices), options, lookup, out);
}

void AppendListBody(const ListPage& page, const RenderOptions& options, const DisplayLookup* lookup,
                    std::string* out) {
  const Layout layout = MakeLayout(*page.schema, page.field_indices);
  out->reserve(out->size() + 16 + page.rows.size() * layout.fields.size() * 32);
  out->append("{\"result\":[");
  const std::vector<RowPtr>& rows = page.rows;
  for (size_t k = 0; k < rows.size(); ++k) {
    // Rows sit wherever they were allocated and a page walks them in key order, so rendering
    // is bound by memory latency: fetch the next rows while this one is written.
    if (k + 2 < rows.size()) __builtin_prefetch(rows[k + 2].get());
    if (k + 1 < rows.size()) {
      const std::string_view next = rows[k + 1]->Bytes();
      for (size_t off = 0; off < next.size() && off < 1024; off += 64) {
        __builtin_prefetch(next.data() + off);
      }
    }
    if (k > 0) out->push_back(',');
    AppendRow(*page.schema, *rows[k], layout, options, lookup, out);
  }
  out->append("]}");
}

std::string RenderListBody(const ListPage& page, const RenderOptions& options,
                           const DisplayLookup* lookup) {
  std::string out;
  AppendListBody(page, options, lookup, &out);
  return out;
}

std::string RenderRecordBody(const TableSchema& schema, const Row& row,
                             const std::vector<size_t>& field_indices, const RenderOptions& options,
                             const DisplayLookup* lookup) {
  std::string out;
  out.reserve(32 + schema.size() * 32);
  out.append("{\"result\":");
  AppendRowJson(schema, row, field_indices, options, lookup, &out);
  out.push_back('}');
  return out;
}

}  // namespace snowcar::emulator
