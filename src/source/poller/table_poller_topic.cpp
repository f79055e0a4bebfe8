// SPDX-License-Identifier: Apache-2.0
// The table poller's first step with topic.creation on: its topic exists before the first
// page is read, so no row is produced to a topic the cluster does not have.
#include "table_poller.h"

namespace snowcar::source {

void TablePoller::PrepareTopic() {
  if (topic_ready_ || !deps_.options.topics) {
    topic_ready_ = true;
    StartReading();
    return;
  }
  status_.SetState(TableState::kStarting);
  deps_.options.topics->Prepare(
      deps_.table->topic, strand_,
      [self = shared_from_this()](const Status& status) { self->OnTopicPrepared(status); });
}

void TablePoller::OnTopicPrepared(const Status& status) {
  if (stopping_ || failed_) return;
  if (!status.ok()) {
    // Nothing was read yet, so nothing is lost: the table waits and asks again, as after a
    // failed probe (retry_probe re-enters PrepareTopic while topic_ready_ is false).
    BackOff(Label() + ": " + status.message(), /*retry_probe=*/true);
    return;
  }
  topic_ready_ = true;
  StartReading();
}

void TablePoller::StartReading() {
  if (deps_.source->startup_probe) {
    status_.SetState(TableState::kProbing);
    SendProbe();
    return;
  }
  MarkStarted();
  status_.SetState(TableState::kRunning);
  ReportHealth();
  Pump();
}

}  // namespace snowcar::source
