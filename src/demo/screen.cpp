// SPDX-License-Identifier: Apache-2.0
#include "demo/screen.h"

#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace snowcar::demo {

bool Screen::StdoutIsTerminal() {
  if (::isatty(STDOUT_FILENO) == 0) return false;
  const char* term = std::getenv("TERM");
  return term != nullptr && std::strcmp(term, "dumb") != 0;
}

void Screen::EraseBlock() {
  if (!redraw_ || block_.empty()) return;
  // Cursor up over the block, then clear to the end of the screen.
  std::fprintf(out_, "\033[%zuA\033[J", block_.size());
}

void Screen::PrintBlock() {
  for (const auto& line : block_) std::fprintf(out_, "%s\n", line.c_str());
}

void Screen::Event(const std::string& text) {
  EraseBlock();
  std::fprintf(out_, "%s\n", text.c_str());
  if (redraw_) PrintBlock();
  std::fflush(out_);
}

void Screen::Progress(const std::vector<std::string>& lines) {
  EraseBlock();
  block_ = lines;
  PrintBlock();
  if (!redraw_) block_.clear();
  std::fflush(out_);
}

}  // namespace snowcar::demo
