// The source's keys in the option table; see include/snowcar/config/options.h.
#include "option_table_parts.h"

namespace snowcar::config {

void AppendSourceOptions(std::vector<OptionSpec>& table) { (void)table; }

}  // namespace snowcar::config
