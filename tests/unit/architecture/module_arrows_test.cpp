// SPDX-License-Identifier: Apache-2.0
// The module arrows only point down, and no room outgrows one job: every #include "..." in src/,
// state/ and include/ names a file of its own module or of a module on a lower row of the layer
// table in docs/README.md (the one place the order is written; this test reads it from there).
//
// A file's module is its folder: src/<m>/..., include/snowcar/<m>/..., state/ (the state
// store), src/main.cpp (main). An include's module is its first folder: "snowcar/<m>/x.h",
// "<m>/x.h" (a module's own or private headers, from src/ or the project root) or
// "../<m>/x.h"; a bare "x.h" is the including file's own folder.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace snowcar {
namespace {

namespace fs = std::filesystem;

const fs::path kRoot = SNOWCAR_SOURCE_DIR;

// Module name -> row in the table (0 = top). Empty when the table is missing.
std::map<std::string, int> ReadLayers(std::string& error) {
  std::ifstream in(kRoot / "docs/README.md");
  std::string line;
  bool in_table = false;
  int row = -1;
  std::map<std::string, int> layers;
  const std::regex name("`([a-z_]+)`");
  while (std::getline(in, line)) {
    if (!in_table) {
      in_table = line.rfind("<!-- module layers", 0) == 0;
      continue;
    }
    if (line.empty() || line[0] != '|') break;
    if (line.find("---") != std::string::npos || line.find("`") == std::string::npos) continue;
    // The modules are the backticked names of the first column.
    const std::string first = line.substr(1, line.find('|', 1) - 1);
    ++row;
    for (auto it = std::sregex_iterator(first.begin(), first.end(), name);
         it != std::sregex_iterator(); ++it) {
      if (!layers.emplace((*it)[1], row).second) error += "module " + (*it)[1].str() + " twice; ";
    }
  }
  if (layers.empty()) error += "no layer table after '<!-- module layers' in docs/README.md";
  return layers;
}

std::string ModuleOfFile(const fs::path& relative) {
  auto it = relative.begin();
  const std::string top = it->string();
  if (top == "state") return "state";
  if (top == "include") return std::next(it, 2)->string();  // include/snowcar/<m>/...
  if (std::next(it, 2) == relative.end()) return "main";    // src/main.cpp
  return std::next(it)->string();                           // src/<m>/...
}

std::string ModuleOfInclude(const std::string& include, const std::string& own) {
  std::vector<std::string> parts;
  std::stringstream ss(include);
  for (std::string p; std::getline(ss, p, '/');) {
    if (p != "..") parts.push_back(p);
  }
  if (parts.size() == 1) return own;
  if (parts[0] == "snowcar" && parts.size() > 2) return parts[1];
  return parts[0];
}

struct Arrow {
  std::string file;
  std::string include;
  std::string from;
  std::string to;
};

std::vector<Arrow> Arrows() {
  std::vector<Arrow> arrows;
  const std::regex include_line(R"re(^\s*#\s*include\s+"([^"]+)")re");
  for (const char* top : {"src", "state", "include"}) {
    for (const auto& entry : fs::recursive_directory_iterator(kRoot / top)) {
      const std::string ext = entry.path().extension().string();
      if (!entry.is_regular_file() || (ext != ".h" && ext != ".cpp")) continue;
      const fs::path relative = fs::relative(entry.path(), kRoot);
      const std::string from = ModuleOfFile(relative);
      std::ifstream in(entry.path());
      std::smatch m;
      for (std::string line; std::getline(in, line);) {
        if (!std::regex_search(line, m, include_line)) continue;
        arrows.push_back({relative.string(), m[1], from, ModuleOfInclude(m[1], from)});
      }
    }
  }
  return arrows;
}

TEST(ModuleArrowsTest, EveryIncludePointsToItsOwnModuleOrALowerRow) {
  std::string error;
  const auto layers = ReadLayers(error);
  ASSERT_TRUE(error.empty()) << error;
  const auto arrows = Arrows();
  ASSERT_GT(arrows.size(), 500u) << "the tree was not found under " << kRoot;
  std::set<std::string> unplaced;
  for (const Arrow& a : arrows) {
    for (const std::string* m : {&a.from, &a.to}) {
      if (layers.count(*m) == 0) unplaced.insert(*m + " (" + a.file + ")");
    }
    if (a.from == a.to || layers.count(a.from) == 0 || layers.count(a.to) == 0) continue;
    EXPECT_GT(layers.at(a.to), layers.at(a.from))
        << a.file << " includes \"" << a.include << "\": " << a.from << " -> " << a.to
        << " does not point down the table in docs/README.md";
  }
  for (const auto& m : unplaced) {
    ADD_FAILURE() << "module " << m << " has no row in the table in docs/README.md";
  }
}

// No room grows past 500 lines: a file that long holds several jobs (docs/README.md, The
// modules). Tests, benchmarks and the public headers' documentation are not counted.
TEST(ModuleArrowsTest, NoFileUnderSrcOrStateIsOver500Lines) {
  constexpr int kMaxLines = 500;
  int files = 0;
  for (const char* top : {"src", "state"}) {
    for (const auto& entry : fs::recursive_directory_iterator(kRoot / top)) {
      const std::string ext = entry.path().extension().string();
      if (!entry.is_regular_file() || (ext != ".h" && ext != ".cpp")) continue;
      ++files;
      std::ifstream in(entry.path());
      int lines = 0;
      for (std::string line; std::getline(in, line);) ++lines;
      EXPECT_LE(lines, kMaxLines) << fs::relative(entry.path(), kRoot).string() << " has " << lines
                                  << " lines: split it by job";
    }
  }
  EXPECT_GT(files, 100) << "the tree was not found under " << kRoot;
}

// The reading itself: the folders map to the modules the table names.
TEST(ModuleArrowsTest, FilesAndIncludesMapToTheirModules) {
  EXPECT_EQ(ModuleOfFile("src/main.cpp"), "main");
  EXPECT_EQ(ModuleOfFile("src/cli/cmd_run.cpp"), "cli");
  EXPECT_EQ(ModuleOfFile("state/state_dir.cpp"), "state");
  EXPECT_EQ(ModuleOfFile("include/snowcar/direction/direction.h"), "direction");
  EXPECT_EQ(ModuleOfInclude("snowcar/kafka/producer.h", "sink"), "kafka");
  EXPECT_EQ(ModuleOfInclude("emulator/emulator_http.h", "emulator"), "emulator");
  EXPECT_EQ(ModuleOfInclude("../kafka/client_config.h", "source"), "kafka");
  EXPECT_EQ(ModuleOfInclude("lane.h", "sink"), "sink");
}

}  // namespace
}  // namespace snowcar
