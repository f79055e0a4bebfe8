// SPDX-License-Identifier: Apache-2.0
// The module arrows only point down, and no room outgrows one job: every #include "..." in src/,
// state/ and include/ names a file of its own module or of a module on a lower row of the layer
// table in docs/README.md (the one place the order is written; this test reads it from there).
// Inside a module with rooms (src/<m>/<room>/, include/snowcar/<m>/<room>/) the same holds
// between rooms, against the room table of docs/README.md; the module's top folder (its hall)
// may include every room, and its top public headers (its face) are below every room.
//
// A file's module is its folder: src/<m>/..., include/snowcar/<m>/..., state/ (the state
// store), src/main.cpp (main). An include is resolved as the compiler does (the including
// file's folder, then include/, src/ and the project root); one that names no file of the
// tree falls back to its first folder: "snowcar/<m>/x.h", "<m>/x.h" or "../<m>/x.h".
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace snowcar {
namespace {

namespace fs = std::filesystem;

const fs::path kRoot = SNOWCAR_SOURCE_DIR;

// The names of the first column of the table after `marker` in docs/README.md -> row (0 =
// top). `name` matches one backticked name. Empty when the table is missing.
std::map<std::string, int> ReadTable(const std::string& marker, const std::regex& name,
                                     std::string& error) {
  std::ifstream in(kRoot / "docs/README.md");
  std::string line;
  bool in_table = false;
  int row = -1;
  std::map<std::string, int> layers;
  while (std::getline(in, line)) {
    if (!in_table) {
      in_table = line.rfind(marker, 0) == 0;
      continue;
    }
    if (line.empty() || line[0] != '|') break;
    if (line.find("---") != std::string::npos || line.find("`") == std::string::npos) continue;
    // The names are the backticked ones of the first column.
    const std::string first = line.substr(1, line.find('|', 1) - 1);
    ++row;
    for (auto it = std::sregex_iterator(first.begin(), first.end(), name);
         it != std::sregex_iterator(); ++it) {
      if (!layers.emplace((*it)[1], row).second) error += (*it)[1].str() + " twice; ";
    }
  }
  if (layers.empty()) error += "no table after '" + marker + "' in docs/README.md; ";
  return layers;
}

// Module name -> row of the module table.
std::map<std::string, int> ReadLayers(std::string& error) {
  return ReadTable("<!-- module layers", std::regex("`([a-z_]+)`"), error);
}

// "<module>/<room>" -> row of the room table.
std::map<std::string, int> ReadRooms(std::string& error) {
  return ReadTable("<!-- room layers", std::regex("`([a-z_]+/[a-z_]+)`"), error);
}

// Where a file sits: its module, and inside the module its room ("" for the hall, the top
// folder src/<m>/, and for the face, the top public headers include/snowcar/<m>/*.h).
struct Place {
  std::string module;
  std::string room;
  bool face = false;
};

Place PlaceOfFile(const fs::path& relative) {
  std::vector<std::string> parts;
  for (const auto& p : relative) parts.push_back(p.string());
  if (parts[0] == "state") return {"state", "", false};
  if (parts[0] == "include") {  // include/snowcar/<m>/[<room>/]x.h
    return {parts[2], parts.size() > 4 ? parts[3] : "", parts.size() == 4};
  }
  if (parts.size() == 2) return {"main", "", false};           // src/main.cpp
  return {parts[1], parts.size() > 3 ? parts[2] : "", false};  // src/<m>/[<room>/]x.cpp
}

std::string ModuleOfFile(const fs::path& relative) { return PlaceOfFile(relative).module; }

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

// The file of the tree an include names, relative to the root; nullopt when there is none
// (a generated or third-party header).
std::optional<fs::path> Resolve(const fs::path& including, const std::string& include) {
  for (const fs::path& base :
       {kRoot / including.parent_path(), kRoot / "include", kRoot / "src", kRoot}) {
    const fs::path candidate = (base / include).lexically_normal();
    if (fs::is_regular_file(candidate)) return fs::relative(candidate, kRoot);
  }
  return std::nullopt;
}

struct Arrow {
  std::string file;     // the including file, relative to the root
  std::string include;  // as written
  Place from;
  Place to;
  bool resolved = false;  // `to` names the room too
};

Arrow MakeArrow(const fs::path& file, const std::string& include,
                const std::optional<fs::path>& target) {
  Arrow a{file.string(), include, PlaceOfFile(file), {}, target.has_value()};
  a.to = target ? PlaceOfFile(*target) : Place{ModuleOfInclude(include, a.from.module), "", false};
  return a;
}

std::vector<Arrow> Arrows() {
  std::vector<Arrow> arrows;
  const std::regex include_line(R"re(^\s*#\s*include\s+"([^"]+)")re");
  for (const char* top : {"src", "state", "include"}) {
    for (const auto& entry : fs::recursive_directory_iterator(kRoot / top)) {
      const std::string ext = entry.path().extension().string();
      if (!entry.is_regular_file() || (ext != ".h" && ext != ".cpp")) continue;
      const fs::path relative = fs::relative(entry.path(), kRoot);
      std::ifstream in(entry.path());
      std::smatch m;
      for (std::string line; std::getline(in, line);) {
        if (!std::regex_search(line, m, include_line)) continue;
        arrows.push_back(MakeArrow(relative, m[1], Resolve(relative, m[1])));
      }
    }
  }
  return arrows;
}

// Inside one module: the hall includes anything of its module; the face only the face; a
// room its own room, a room on a lower row of the room table, or the face.
std::optional<std::string> RoomProblem(const std::map<std::string, int>& rooms, const Arrow& a) {
  const Place& f = a.from;
  const Place& t = a.to;
  if (!a.resolved || f.module != t.module) return std::nullopt;
  const std::string in = a.file + " includes \"" + a.include + "\": ";
  if (f.face) {
    if (t.face) return std::nullopt;
    return in + "a public header at the top of include/snowcar/" + f.module +
           "/ (the module's face, below every room) includes a room or the module's top folder";
  }
  if (f.room.empty() || t.face || f.room == t.room) return std::nullopt;  // hall, face, own room
  if (t.room.empty()) {
    return in + "the room " + f.module + "/" + f.room + " includes src/" + f.module +
           "/ (the module's top folder, above every room)";
  }
  const auto from_row = rooms.find(f.module + "/" + f.room);
  const auto to_row = rooms.find(t.module + "/" + t.room);
  if (from_row == rooms.end() || to_row == rooms.end()) return std::nullopt;  // reported apart
  if (to_row->second > from_row->second) return std::nullopt;
  return in + f.module + "/" + f.room + " -> " + t.module + "/" + t.room +
         " does not point down the room table in docs/README.md";
}

TEST(ModuleArrowsTest, EveryIncludePointsToItsOwnModuleOrALowerRow) {
  std::string error;
  const auto layers = ReadLayers(error);
  ASSERT_TRUE(error.empty()) << error;
  const auto arrows = Arrows();
  ASSERT_GT(arrows.size(), 500u) << "the tree was not found under " << kRoot;
  std::set<std::string> unplaced;
  for (const Arrow& a : arrows) {
    for (const std::string* m : {&a.from.module, &a.to.module}) {
      if (layers.count(*m) == 0) unplaced.insert(*m + " (" + a.file + ")");
    }
    const std::string& from = a.from.module;
    const std::string& to = a.to.module;
    if (from == to || layers.count(from) == 0 || layers.count(to) == 0) continue;
    EXPECT_GT(layers.at(to), layers.at(from))
        << a.file << " includes \"" << a.include << "\": " << from << " -> " << to
        << " does not point down the table in docs/README.md";
  }
  for (const auto& m : unplaced) {
    ADD_FAILURE() << "module " << m << " has no row in the table in docs/README.md";
  }
}

TEST(ModuleArrowsTest, EveryIncludeBetweenRoomsPointsDown) {
  std::string error;
  const auto rooms = ReadRooms(error);
  ASSERT_TRUE(error.empty()) << error;
  const auto arrows = Arrows();
  ASSERT_GT(arrows.size(), 500u) << "the tree was not found under " << kRoot;
  std::set<std::string> unplaced;
  for (const Arrow& a : arrows) {
    for (const Place* p : {&a.from, &a.to}) {
      if (!p->room.empty() && rooms.count(p->module + "/" + p->room) == 0) {
        unplaced.insert(p->module + "/" + p->room);
      }
    }
    if (auto problem = RoomProblem(rooms, a)) ADD_FAILURE() << *problem;
  }
  for (const auto& r : unplaced) {
    ADD_FAILURE() << "room " << r << " has no row in the room table in docs/README.md";
  }
}

// Every folder inside a module is a room with a row, so none escapes the check above.
TEST(ModuleArrowsTest, EveryFolderInsideAModuleIsARoom) {
  std::string error;
  const auto rooms = ReadRooms(error);
  ASSERT_TRUE(error.empty()) << error;
  for (const char* top : {"src", "include/snowcar"}) {
    for (const auto& module : fs::directory_iterator(kRoot / top)) {
      if (!module.is_directory()) continue;
      for (const auto& room : fs::recursive_directory_iterator(module.path())) {
        if (!room.is_directory()) continue;
        const fs::path inside = fs::relative(room.path(), module.path());
        EXPECT_TRUE(std::distance(inside.begin(), inside.end()) == 1 &&
                    rooms.count(module.path().filename().string() + "/" + inside.string()) == 1)
            << fs::relative(room.path(), kRoot).string()
            << " is a folder inside a module but no room of the room table in docs/README.md";
      }
    }
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

// The reading itself: the folders map to the modules and rooms the tables name.
TEST(ModuleArrowsTest, FilesAndIncludesMapToTheirModules) {
  EXPECT_EQ(ModuleOfFile("src/main.cpp"), "main");
  EXPECT_EQ(ModuleOfFile("src/cli/cmd_run.cpp"), "cli");
  EXPECT_EQ(ModuleOfFile("state/state_dir.cpp"), "state");
  EXPECT_EQ(ModuleOfFile("include/snowcar/direction/direction.h"), "direction");
  EXPECT_EQ(ModuleOfFile("src/testbed/emulator/gzip.cpp"), "testbed");
  EXPECT_EQ(ModuleOfInclude("snowcar/kafka/producer.h", "sink"), "kafka");
  EXPECT_EQ(ModuleOfInclude("../kafka/client_config.h", "source"), "kafka");
  EXPECT_EQ(ModuleOfInclude("lane.h", "sink"), "sink");

  const Place room = PlaceOfFile("src/source/poller/table_poller.cpp");
  EXPECT_EQ(room.module, "source");
  EXPECT_EQ(room.room, "poller");
  EXPECT_FALSE(room.face);
  const Place public_room = PlaceOfFile("include/snowcar/source/rows/row.h");
  EXPECT_EQ(public_room.room, "rows");
  EXPECT_FALSE(public_room.face);
  const Place face = PlaceOfFile("include/snowcar/source/source_settings.h");
  EXPECT_EQ(face.room, "");
  EXPECT_TRUE(face.face);
  const Place hall = PlaceOfFile("src/source/source_direction.cpp");
  EXPECT_EQ(hall.room, "");
  EXPECT_FALSE(hall.face);

  // Includes resolve as the compiler finds them: beside the file first, then include/.
  EXPECT_EQ(Resolve("src/source/poller/table_poller.cpp", "../rows/page_request.h")
                .value_or("none")
                .string(),
            "src/source/rows/page_request.h");
  EXPECT_EQ(Resolve("src/source/poller/table_poller.cpp", "snowcar/source/rows/row.h")
                .value_or("none")
                .string(),
            "include/snowcar/source/rows/row.h");
  EXPECT_FALSE(Resolve("src/source/source.cpp", "no/such/header.h").has_value());
}

// The room check on made-up arrows: what it lets through and what it refuses.
TEST(ModuleArrowsTest, AnUpwardIncludeBetweenRoomsIsRefused) {
  const std::map<std::string, int> rooms = {
      {"source/poller", 0}, {"source/deletes", 1}, {"source/typed", 1}, {"source/rows", 2}};
  const auto problem = [&](const char* file, const char* include, const char* target) {
    return RoomProblem(rooms, MakeArrow(file, include, fs::path(target)));
  };
  const auto fine = [&](const char* file, const char* include, const char* target) {
    const auto p = problem(file, include, target);
    EXPECT_FALSE(p.has_value()) << *p;
  };
  // Down the table, within a room, to the face, from the hall: fine.
  fine("src/source/poller/table_poller.cpp", "../rows/page_request.h",
       "src/source/rows/page_request.h");
  fine("src/source/rows/page_request.cpp", "page_request.h", "src/source/rows/page_request.h");
  fine("src/source/rows/row.cpp", "snowcar/source/source_settings.h",
       "include/snowcar/source/source_settings.h");
  fine("src/source/source_direction.h", "poller/table_poller.h",
       "src/source/poller/table_poller.h");
  // Up the table: the bottom room including the poller.
  const auto up = problem("src/source/rows/page_request.cpp", "../poller/table_poller.h",
                          "src/source/poller/table_poller.h");
  ASSERT_TRUE(up.has_value());
  EXPECT_NE(up->find("source/rows -> source/poller does not point down"), std::string::npos) << *up;
  // A neighbour on the same row.
  EXPECT_TRUE(problem("src/source/deletes/reconciler.cpp", "../typed/typed_table.h",
                      "src/source/typed/typed_table.h")
                  .has_value());
  // A room including the hall, and the face including a room.
  EXPECT_TRUE(
      problem("src/source/rows/row.cpp", "../source_direction.h", "src/source/source_direction.h")
          .has_value());
  EXPECT_TRUE(problem("include/snowcar/source/source_settings.h", "snowcar/source/rows/row.h",
                      "include/snowcar/source/rows/row.h")
                  .has_value());
  // Another module's rooms are the module table's business.
  fine("src/sink/lanes/lane.cpp", "snowcar/source/rows/row.h", "include/snowcar/source/rows/row.h");
}

}  // namespace
}  // namespace snowcar
