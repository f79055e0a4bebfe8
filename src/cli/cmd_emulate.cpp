// PLACEHOLDER: replaced by the module owner. Prints an error so nothing pretends to work.
#include <cstdio>

#include "cli/commands.h"

namespace snowcar::cli {
int EmulateMain(int /*argc*/, char** /*argv*/) {
  std::fprintf(stderr, "snowcar emulate: not built yet\n");
  return 1;
}
}  // namespace snowcar::cli
