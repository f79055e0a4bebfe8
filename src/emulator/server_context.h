// SPDX-License-Identifier: Apache-2.0
// What the emulator's routes share: the tables, the knobs and the options.
#pragma once

#include "emulator/dictionary_sync.h"
#include "snowcar/emulator/emulator_clock.h"
#include "snowcar/emulator/emulator_server.h"
#include "snowcar/emulator/faults.h"
#include "snowcar/emulator/journal.h"
#include "snowcar/emulator/oauth_tokens.h"
#include "snowcar/emulator/row_generator.h"
#include "snowcar/emulator/table_store.h"

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
