// SPDX-License-Identifier: Apache-2.0
// Terminal output of `snowcar demo`. Events (a step started, a command's output) scroll like
// a log; the progress block below them is redrawn in place on a terminal, and printed as
// plain lines every tick when stdout is a pipe or a file (CI logs, tests).
#pragma once

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

namespace snowcar::demo {

// Layout of the lines the demo prints.
std::string Pad(std::string s, size_t width);                // spaces after, up to width
std::string PadLeft(const std::string& s, size_t width);     // spaces before, up to width
std::string Indent(const std::string& text);                 // two spaces before every line
std::string Seconds(std::chrono::steady_clock::duration d);  // "12.3 s"

class Screen {
 public:
  // `redraw`: stdout is a terminal that understands ANSI cursor movement.
  Screen(std::FILE* out, bool redraw) : out_(out), redraw_(redraw) {}

  // True when stdout is a terminal and TERM is not "dumb".
  static bool StdoutIsTerminal();

  void Event(const std::string& text);
  void Progress(const std::vector<std::string>& lines);
  // On a terminal the last block stays on screen; it is forgotten so that later events
  // print below it instead of over it.
  void KeepBlock() { block_.clear(); }

 private:
  void EraseBlock();
  void PrintBlock();

  std::FILE* out_;
  bool redraw_;
  std::vector<std::string> block_;  // what is on screen below the events (redraw mode)
};

}  // namespace snowcar::demo
