// SPDX-License-Identifier: Apache-2.0
// Adaptive polling (snow.table.<alias>.poll.interval.max.ms): how long a caught-up table waits
// before its next sweep.
#include <algorithm>

#include "table_poller.h"

namespace snowcar::source {

void TablePoller::AdaptInterval() {
  const int64_t base = deps_.table->poll_interval_ms;
  const int64_t ceiling = deps_.table->poll_interval_max_ms;
  if (ceiling <= base) {
    idle_interval_ms_ = base;
  } else {
    // A sweep that read past the previous one's last row, or rows acknowledged since, saw the
    // table change: back to the poll interval. Otherwise the sweep re-read only the overlap.
    const state::Cursor& row = plan_.last_row();
    const int64_t emitted = status_.rows_emitted.load();
    const bool changed = row.ts != interval_row_.ts || row.sys_id != interval_row_.sys_id ||
                         emitted != interval_emitted_;
    interval_row_ = row;
    interval_emitted_ = emitted;
    if (changed || idle_interval_ms_ <= 0) {
      idle_interval_ms_ = base;
    } else {
      idle_interval_ms_ = std::min(ceiling, std::max<int64_t>(idle_interval_ms_, 1) * 2);
    }
  }
  status_.poll_interval_ms.store(idle_interval_ms_);
}

}  // namespace snowcar::source
