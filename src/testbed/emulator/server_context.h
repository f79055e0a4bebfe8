// SPDX-License-Identifier: Apache-2.0
// What the emulator's routes share: the tables, the knobs and the options.
#pragma once

#include "snowcar/testbed/emulator/emulator_clock.h"
#include "snowcar/testbed/emulator/emulator_server.h"
#include "snowcar/testbed/emulator/faults.h"
#include "snowcar/testbed/emulator/journal.h"
#include "snowcar/testbed/emulator/oauth_tokens.h"
#include "snowcar/testbed/emulator/row_generator.h"
#include "snowcar/testbed/emulator/table_store.h"
#include "testbed/emulator/dictionary_sync.h"

namespace snowcar::emulator {

struct ServerContext {
  const EmulatorOptions& options;
  TableStore& store;
  EmulatorClock& clock;
  FaultKnobs& faults;
  Journal& journal;
  RowGenerator& row_generator;
  OAuthTokens& oauth;
  DictionarySync& dictionary;
};

}  // namespace snowcar::emulator
