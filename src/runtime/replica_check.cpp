// SPDX-License-Identifier: Apache-2.0
#include "snowcar/runtime/replica_check.h"

#include <cctype>

namespace snowcar::runtime {

bool LooksLikeStatefulSetPod(std::string_view pod_name) {
  const size_t dash = pod_name.rfind('-');
  if (dash == std::string_view::npos || dash == 0 || dash + 1 == pod_name.size()) return false;
  for (const char c : pod_name.substr(dash + 1)) {
    if (std::isdigit(static_cast<unsigned char>(c)) == 0) return false;
  }
  return true;
}

std::string SourceWithoutGroupWarning(const SidecarSettings& settings, const char* pod_name) {
  if (!settings.source_enabled || !settings.source_group_id.empty()) return {};
  if (pod_name == nullptr || !LooksLikeStatefulSetPod(pod_name)) return {};
  return "the source is on without source.group.id in pod " + std::string(pod_name) +
         ", which looks like a StatefulSet replica: if other replicas share this "
         "configuration, each of them polls every table and every row is emitted once per "
         "replica; set source.group.id to share the tables out (docs/scale-out.md), or run "
         "the source in one replica only";
}

}  // namespace snowcar::runtime
