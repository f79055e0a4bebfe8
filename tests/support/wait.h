// SPDX-License-Identifier: Apache-2.0
// Waiting on a condition with a deadline: the only way tests wait for something to happen.
#pragma once

#include <chrono>
#include <functional>
#include <string>

namespace snowcar::testsupport {

// Checks `condition` until it returns true or `timeout` has passed, re-checking every `poll`.
// Returns the last answer, so `ASSERT_TRUE(WaitFor(...))` fails with the deadline.
bool WaitFor(const std::function<bool()>& condition, std::chrono::milliseconds timeout,
             std::chrono::milliseconds poll = std::chrono::milliseconds(10));

// A name no other test in this process (or a parallel test process) uses: prefix-<pid>-<n>.
// Handy for topics and consumer groups on a shared broker.
std::string UniqueName(const std::string& prefix);

}  // namespace snowcar::testsupport
