// PLACEHOLDER: replaced by the module owner. Prints an error so nothing pretends to work.
#include <cstdio>

#include "cli/commands.h"

namespace snowcar::cli {
int BrokerMain(int /*argc*/, char** /*argv*/) {
  std::fprintf(stderr, "snowcar broker: not built yet\n");
  return 1;
}
}  // namespace snowcar::cli
