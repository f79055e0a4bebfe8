// SPDX-License-Identifier: Apache-2.0
// Warnings about how replicas share a configuration, from what the process can see of its
// pod. Warnings, not errors: a single-replica StatefulSet is a fine home for the source.
#pragma once

#include <string>
#include <string_view>

#include "snowcar/runtime/sidecar.h"

namespace snowcar::runtime {

// True when `pod_name` looks like a StatefulSet pod: "<name>-<ordinal>" (snowcar-app-0).
bool LooksLikeStatefulSetPod(std::string_view pod_name);

// "" or a warning: the source is on without source.group.id in a pod named like a replica of
// a StatefulSet (`pod_name`, from POD_NAME; null or "" when not set). Every replica that
// shares the file would poll every table and emit every row once per replica.
std::string SourceWithoutGroupWarning(const SidecarSettings& settings, const char* pod_name);

}  // namespace snowcar::runtime
