// SPDX-License-Identifier: Apache-2.0
// log.format=text as `snowcar run` applies it: one line per event, whatever a field holds.
// (Here rather than in tests/unit/common because it pins the runtime's text format.)
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "snowcar/common/log.h"

namespace snowcar::log {
namespace {

std::string WriteTextLine(std::initializer_list<Field> fields) {
  std::FILE* file = std::tmpfile();
  SetFd(fileno(file));
  SetFormat(Format::kText);
  Write(Level::kWarn, "source.page_failed", fields);
  SetFormat(Format::kJson);
  SetFd(2);
  std::string all;
  char buf[1024];
  std::rewind(file);
  size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, file)) > 0) all.append(buf, n);
  std::fclose(file);
  return all;
}

TEST(LogTextTest, ALineFeedInAValueCannotForgeASecondLine) {
  const std::string out = WriteTextLine(
      {{"error", "bad\n2026-01-01T00:00:00.000Z ERROR forged.event x=1"}, {"table", "incident"}});
  EXPECT_EQ(out.find('\n'), out.size() - 1) << out;
  EXPECT_NE(out.find("error=\"bad\\n2026"), std::string::npos) << out;
  EXPECT_NE(out.find(" table=incident\n"), std::string::npos) << out;
}

TEST(LogTextTest, PlainValuesStayUnquotedAndSpacesAreQuoted) {
  const std::string out = WriteTextLine({{"table", "incident"}, {"message", "two words"}});
  EXPECT_NE(out.find(" WARN source.page_failed table=incident message=\"two words\"\n"),
            std::string::npos)
      << out;
}

}  // namespace
}  // namespace snowcar::log
