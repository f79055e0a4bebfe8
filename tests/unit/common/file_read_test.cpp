// SPDX-License-Identifier: Apache-2.0
// Bounded file reads: the limit holds for files, devices and /proc alike, and every error
// names the file, its role and (when too large) the limit.
#include "snowcar/common/file_read.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace snowcar {
namespace {

constexpr ReadLimit kTen{"test file", 10};

// A fresh directory, removed with its files.
class Dir {
 public:
  Dir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "snowcar-read-XXXXXX");
    if (::mkdtemp(pattern.data()) == nullptr) std::abort();
    path_ = pattern;
  }
  ~Dir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  Dir(const Dir&) = delete;
  Dir& operator=(const Dir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::string File(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

std::string Write(const Dir& dir, const std::string& name, const std::string& content) {
  std::string path = dir.File(name);
  std::ofstream(path, std::ios::binary) << content;
  return path;
}

TEST(FileReadTest, ReadsAFileUpToExactlyTheLimit) {
  Dir dir;
  auto text = ReadFileBounded(Write(dir, "ten", "0123456789"), kTen);
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  EXPECT_EQ(*text, "0123456789");
  auto empty = ReadFileBounded(Write(dir, "empty", ""), kTen);
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(*empty, "");
}

TEST(FileReadTest, OneByteOverTheLimitIsAnErrorNamingFileAndLimit) {
  Dir dir;
  const std::string path = Write(dir, "eleven", "0123456789a");
  auto text = ReadFileBounded(path, kTen);
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(text.status().message(),
            "cannot read test file '" + path + "': more than 10 bytes, the limit for a test file");
}

// A character device reports size 0 and never ends: the limit must hold on the bytes read.
TEST(FileReadTest, EndlessDeviceStopsAtTheLimit) {
  auto zero = ReadFileBounded("/dev/zero", kConfigFileLimit);
  ASSERT_FALSE(zero.ok());
  EXPECT_EQ(zero.status().message(),
            "cannot read config file '/dev/zero': more than 1 MiB, the limit for a config file");
}

TEST(FileReadTest, ProcFilesReportSizeZeroButAreRead) {
  auto stat = ReadFileBounded("/proc/self/stat", kProcFileLimit);
  ASSERT_TRUE(stat.ok()) << stat.status().ToString();
  EXPECT_NE(stat->find(std::to_string(::getpid()) + " ("), std::string::npos) << *stat;
}

TEST(FileReadTest, MissingFileDirectoryAndNoPermissionAreNamed) {
  Dir dir;
  auto missing = ReadFileBounded(dir.File("absent"), kTen);
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(missing.status().message(),
            "cannot read test file '" + dir.File("absent") + "': No such file or directory");
  auto directory = ReadFileBounded(dir.path().string(), kTen);
  EXPECT_EQ(directory.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(directory.status().message().find("it is a directory"), std::string::npos);
  if (::geteuid() != 0) {  // root reads everything
    const std::string locked = Write(dir, "locked", "x");
    ASSERT_EQ(::chmod(locked.c_str(), 0), 0);
    EXPECT_EQ(ReadFileBounded(locked, kTen).status().code(), StatusCode::kPermissionDenied);
  }
}

TEST(FileReadTest, HeadAndTailReturnAtMostTheLimitWithoutError) {
  Dir dir;
  const std::string path = Write(dir, "long", "first line\nmiddle\nlast line\n");
  auto head = ReadFileHead(path, kTen);
  ASSERT_TRUE(head.ok());
  EXPECT_EQ(*head, "first line");
  auto tail = ReadFileTail(path, kTen);
  ASSERT_TRUE(tail.ok());
  EXPECT_EQ(*tail, "last line\n");
  auto whole = ReadFileTail(Write(dir, "short", "abc"), kTen);
  ASSERT_TRUE(whole.ok());
  EXPECT_EQ(*whole, "abc");
  auto zero = ReadFileHead("/dev/zero", kTen);
  ASSERT_TRUE(zero.ok());
  EXPECT_EQ(*zero, std::string(10, '\0'));
}

TEST(FileReadTest, ByteSizesReadAsPeopleWriteThem) {
  EXPECT_EQ(FormatByteSize(size_t{1} << 20), "1 MiB");
  EXPECT_EQ(FormatByteSize(size_t{256} << 20), "256 MiB");
  EXPECT_EQ(FormatByteSize(size_t{64} << 10), "64 KiB");
  EXPECT_EQ(FormatByteSize(1500), "1500 bytes");
}

}  // namespace
}  // namespace snowcar
