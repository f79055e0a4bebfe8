// SPDX-License-Identifier: Apache-2.0
#include "demo/screen.h"

#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace snowcar::demo {

std::string Pad(std::string s, size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s;
}

std::string PadLeft(const std::string& s, size_t width) {
  return s.size() < width ? std::string(width - s.size(), ' ') + s : s;
}

std::string Indent(const std::string& text) {
  std::string out = "  ";
  for (size_t i = 0; i < text.size(); ++i) {
    out += text[i];
    if (text[i] == '\n' && i + 1 < text.size()) out += "  ";
  }
  if (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

std::string Seconds(std::chrono::steady_clock::duration d) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s", std::chrono::duration<double>(d).count());
  return buf;
}

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
