// SPDX-License-Identifier: Apache-2.0
#include "snowcar/kafka/static_membership.h"

#include <string>

namespace snowcar::kafka {
namespace {

// Kafka's own rule for group.instance.id (the broker refuses anything else at JoinGroup).
std::string Problem(std::string_view id) {
  if (id.empty()) return "is empty";
  if (id.size() > 249) return "is longer than 249 characters";
  for (char c : id) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-';
    if (!ok) return "may only contain letters, digits, '.', '_' and '-'";
  }
  return "";
}

}  // namespace

Result<StaticMembership> ResolveStaticMembership(std::string_view configured,
                                                 const char* pod_name) {
  if (configured == kStaticMembershipOff) {
    return StaticMembership{.id = "", .origin = "off: kafka.group.instance.id=off"};
  }
  if (!configured.empty()) {
    if (const std::string p = Problem(configured); !p.empty()) {
      return Status::InvalidArgument("kafka.group.instance.id " + p);
    }
    return StaticMembership{.id = std::string(configured), .origin = "kafka.group.instance.id"};
  }
  if (pod_name == nullptr || *pod_name == '\0') {
    return StaticMembership{.id = "",
                            .origin = "off: neither kafka.group.instance.id nor POD_NAME is set"};
  }
  if (const std::string p = Problem(pod_name); !p.empty()) {
    return Status::InvalidArgument(
        "the POD_NAME environment variable, used as kafka.group.instance.id, " + p +
        "; set kafka.group.instance.id (or `off`) instead");
  }
  return StaticMembership{.id = pod_name, .origin = "POD_NAME"};
}

void ApplyStaticMembership(const StaticMembership& membership,
                           std::map<std::string, std::string>& properties) {
  if (membership.id.empty()) {
    properties.erase("group.instance.id");
  } else {
    properties["group.instance.id"] = membership.id;
  }
}

}  // namespace snowcar::kafka
