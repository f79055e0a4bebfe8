// SPDX-License-Identifier: Apache-2.0
// docs/configuration.md must be exactly what the option table renders.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "snowcar/config/options.h"

namespace snowcar::config {
namespace {

using ::testing::HasSubstr;

TEST(DocsTest, ConfigurationMarkdownIsCurrent) {
  const std::string path = std::string(SNOWCAR_SOURCE_DIR) + "/docs/configuration.md";
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in) << path << " is missing; run make docs-config";
  std::ostringstream file;
  file << in.rdbuf();
  EXPECT_TRUE(file.str() == RenderMarkdownReference())
      << path << " differs from the option table; run make docs-config";
}

TEST(DocsTest, ReferenceShowsTypeDefaultBoundsSecretAndDoc) {
  const std::string md = RenderMarkdownReference();
  EXPECT_THAT(md, HasSubstr("## Sidecar process"));
  EXPECT_THAT(md, HasSubstr("### `threads`"));
  EXPECT_THAT(md, HasSubstr("- allowed: a whole number from 0 to 256"));
  EXPECT_THAT(md, HasSubstr("- default: `/var/lib/snowcar`"));
  EXPECT_THAT(md, HasSubstr("- allowed: one of: trace, debug, info, warn, error"));
  EXPECT_THAT(md, HasSubstr("may instead be read from the file named by "
                            "`snow.auth.password.file`"));
  EXPECT_THAT(md, HasSubstr("- environment: `SNOWCAR_STATE_DIR`"));
  EXPECT_THAT(md, HasSubstr("### `kafka.<property>`"));
  EXPECT_THAT(md, HasSubstr("| `tasks.max` |"));
  // Every entry appears.
  for (const OptionSpec& spec : Options()) {
    EXPECT_THAT(md, HasSubstr("`" + std::string(spec.name) + "`")) << spec.name;
  }
}

}  // namespace
}  // namespace snowcar::config
