// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>
#include <linux/capability.h>
#include <rocksdb/db.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "raw_store.h"
#include "snowcar/state/state_store.h"
#include "state/key_codec.h"
#include "support/state_fixture.h"

namespace snowcar::state {
namespace {

class StateStoreOpenTest : public testsupport::StateStoreTest {};

Status OpenStatus(const std::string& dir) {
  auto store = StateStore::Open(StateStoreOptions{dir});
  return store.status();
}

void Contains(const Status& s, const std::string& needle) {
  EXPECT_NE(s.message().find(needle), std::string::npos)
      << "'" << needle << "' missing from: " << s.ToString();
}

TEST_F(StateStoreOpenTest, CreatesTheDirAndWritesTheSchemaVersion) {
  TempDir tmp;
  const std::string dir = tmp.Sub("a/b/state");
  {
    auto store = OpenOrDie(dir);
    EXPECT_EQ(store->schema_version(), kSchemaVersion);
    EXPECT_EQ(store->dir(), dir);
  }
  EXPECT_TRUE(std::filesystem::is_regular_file(dir + "/CURRENT"));
  EXPECT_TRUE(std::filesystem::is_regular_file(dir + "/snowcar.lock"));
  auto again = OpenOrDie(dir);
  EXPECT_EQ(again->schema_version(), kSchemaVersion);
}

TEST_F(StateStoreOpenTest, ReopenKeepsCursorsDedupAndCorrelation) {
  TempDir tmp;
  {
    auto store = OpenOrDie(tmp.path());
    auto w = store->LoadDedupWindow(Identity("incident"), DedupPolicy{2, 100});
    ASSERT_TRUE(w.ok());
    ASSERT_TRUE((*w)->Insert({500, HexId(1), 2}));
    ASSERT_TRUE(store->Commit(Identity("incident"), {500, HexId(1), Phase::kStream}, **w).ok());
    ASSERT_TRUE(store->PutCorrelation("incident", "u_ext", "x", HexId(1)).ok());
  }
  auto store = OpenOrDie(tmp.path());
  EXPECT_EQ(**store->LoadCursor(Identity("incident")), (Cursor{500, HexId(1), Phase::kStream}));
  EXPECT_EQ(*store->DedupEntriesFor("incident", HexId(1)),
            (std::vector<DedupKey>{{500, HexId(1), 2}}));
  EXPECT_EQ(store->GetCorrelation("incident", "u_ext", "x")->value_or(""), HexId(1));
}

TEST_F(StateStoreOpenTest, SyncWritesCommitAndReopen) {
  TempDir tmp;
  StateStoreOptions o{tmp.path()};
  o.sync_writes = true;
  {
    auto store = StateStore::Open(o);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    auto w = (*store)->LoadDedupWindow(Identity("incident"), DedupPolicy{2, 100});
    ASSERT_TRUE((*w)->Insert({7, HexId(7), 0}));
    ASSERT_TRUE((*store)->Commit(Identity("incident"), {7, HexId(7), Phase::kStream}, **w).ok());
  }
  auto store = StateStore::Open(o);
  ASSERT_TRUE(store.ok());
  EXPECT_EQ((**(*store)->LoadCursor(Identity("incident"))).ts, 7);
  EXPECT_EQ(*(*store)->DedupCount("incident"), 1u);
}

TEST_F(StateStoreOpenTest, SecondOpenIsRefusedNamingTheHolder) {
  TempDir tmp;
  auto first = OpenOrDie(tmp.path());
  Status s = OpenStatus(tmp.path());
  EXPECT_EQ(s.code(), StatusCode::kAlreadyExists);
  Contains(s, "state dir " + tmp.path() + " is in use by pid " + std::to_string(getpid()));
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  Contains(s, std::string("on host ") + host);
  first.reset();
  // Released with the store.
  EXPECT_TRUE(OpenStatus(tmp.path()).ok());
}

TEST_F(StateStoreOpenTest, NewerSchemaVersionIsRefusedNamingBoth) {
  TempDir tmp;
  OpenOrDie(tmp.path()).reset();
  {
    // Rewrite the version as a future snowcar would.
    testing::WithRawStore(tmp.path(), [&](rocksdb::DB& db, const testing::RawFamilies& cf) {
      ASSERT_TRUE(db.Put(rocksdb::WriteOptions(), cf.meta, std::string(codec::kSchemaVersionKey),
                         codec::EncodeSchemaVersion(kSchemaVersion + 1))
                      .ok());
    });
  }
  Status s = OpenStatus(tmp.path());
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  Contains(s, "schema version " + std::to_string(kSchemaVersion + 1));
  Contains(s, "schema version " + std::to_string(kSchemaVersion) + " only");
  Contains(s, tmp.path());
}

TEST_F(StateStoreOpenTest, ForeignRocksDbIsRefusedAsUnknownLayout) {
  TempDir tmp;
  {
    rocksdb::Options o;
    o.create_if_missing = true;
    rocksdb::DB* db = nullptr;
    ASSERT_TRUE(rocksdb::DB::Open(o, tmp.path(), &db).ok());
    ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), "k", "v").ok());
    delete db;
  }
  Status s = OpenStatus(tmp.path());
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  Contains(s, "not a snowcar state store");
  Contains(s, tmp.path());
}

// Makes an empty RocksDB database in dir with the default family and `families`.
void MakeEmptyDatabase(const std::string& dir, const std::vector<std::string>& families) {
  rocksdb::Options o;
  o.create_if_missing = true;
  o.create_missing_column_families = true;
  std::vector<rocksdb::ColumnFamilyDescriptor> descriptors{
      {rocksdb::kDefaultColumnFamilyName, rocksdb::ColumnFamilyOptions()}};
  for (const auto& f : families) descriptors.emplace_back(f, rocksdb::ColumnFamilyOptions());
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* db = nullptr;
  ASSERT_TRUE(rocksdb::DB::Open(o, dir, descriptors, &handles, &db).ok());
  for (auto* h : handles) ASSERT_TRUE(db->DestroyColumnFamilyHandle(h).ok());
  delete db;
}

// RocksDB creates a database with its default family, then adds the others one by one: a first
// start killed in between (seen in the exactly-once kill loop) left a dir every later start
// refused as "not a snowcar state store". Empty, with only our families, it is finished.
TEST_F(StateStoreOpenTest, AnEmptyDatabaseFromAnInterruptedCreateIsFinished) {
  for (const std::vector<std::string>& made :
       {std::vector<std::string>{},
        std::vector<std::string>{std::string(codec::kCursorCf), std::string(codec::kDedupCf)}}) {
    SCOPED_TRACE(made.empty() ? "default family only" : "default, cursor and dedup families");
    TempDir tmp;
    MakeEmptyDatabase(tmp.path(), made);
    {
      auto store = OpenOrDie(tmp.path());
      EXPECT_EQ(store->schema_version(), kSchemaVersion);
      auto w = store->LoadDedupWindow(Identity("incident"), DedupPolicy{2, 100});
      ASSERT_TRUE(w.ok());
      ASSERT_TRUE(store->Commit(Identity("incident"), {500, HexId(1), Phase::kStream}, **w).ok());
    }
    auto store = OpenOrDie(tmp.path());
    EXPECT_EQ(**store->LoadCursor(Identity("incident")), (Cursor{500, HexId(1), Phase::kStream}));
  }
}

// Empty is not enough: a family that is not one of ours makes it someone else's database.
TEST_F(StateStoreOpenTest, AnEmptyDatabaseWithAForeignFamilyIsRefused) {
  TempDir tmp;
  MakeEmptyDatabase(tmp.path(), {std::string(codec::kCursorCf), "orders"});
  Status s = OpenStatus(tmp.path());
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  Contains(s, "not a snowcar state store");
  Contains(s, "orders");
}

TEST_F(StateStoreOpenTest, NonEmptyForeignDirIsRefused) {
  TempDir tmp;
  std::ofstream(tmp.Sub("notes.txt")) << "mine";
  Status s = OpenStatus(tmp.path());
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  Contains(s, "notes.txt");
  EXPECT_FALSE(std::filesystem::exists(tmp.Sub("CURRENT")));
}

TEST_F(StateStoreOpenTest, RegularFileInPlaceOfTheDirIsRefused) {
  TempDir tmp;
  std::ofstream(tmp.Sub("file")) << "x";
  Status s = OpenStatus(tmp.Sub("file"));
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  Contains(s, tmp.Sub("file") + " exists but is not a directory");
  // A dir below a regular file cannot be created either (fails as root too).
  s = OpenStatus(tmp.Sub("file/state"));
  EXPECT_FALSE(s.ok());
  Contains(s, tmp.Sub("file/state"));
  Contains(s, "Not a directory");
}

TEST_F(StateStoreOpenTest, MissingDirWithoutCreateIsNotFound) {
  TempDir tmp;
  StateStoreOptions o{tmp.Sub("absent")};
  o.create_if_missing = false;
  auto store = StateStore::Open(o);
  EXPECT_EQ(store.status().code(), StatusCode::kNotFound);
  Contains(store.status(), tmp.Sub("absent"));
}

// Root ignores mode bits, so the check runs on a thread that gives up the capabilities that
// let root write anywhere (capabilities are per thread on Linux), which makes the refusal real.
void WithoutDacOverride(const std::function<void()>& fn) {
  std::thread t([&] {
    __user_cap_header_struct hdr{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct data[2] = {};
    if (syscall(SYS_capget, &hdr, data) == 0) {
      for (int cap : {CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER}) {
        data[cap / 32].effective &= ~(1u << (cap % 32));
      }
      syscall(SYS_capset, &hdr, data);
    }
    fn();
  });
  t.join();
}

TEST_F(StateStoreOpenTest, UnwritableDirIsPermissionDenied) {
  TempDir tmp;
  const std::string dir = tmp.Sub("ro");
  ASSERT_EQ(mkdir(dir.c_str(), 0500), 0);
  Status s;
  WithoutDacOverride([&] { s = OpenStatus(dir); });
  chmod(dir.c_str(), 0700);
  EXPECT_EQ(s.code(), StatusCode::kPermissionDenied) << s.ToString();
  Contains(s, dir);
  Contains(s, "Permission denied");
}

TEST_F(StateStoreOpenTest, UncreatableDirIsPermissionDenied) {
  TempDir tmp;
  const std::string parent = tmp.Sub("ro");
  ASSERT_EQ(mkdir(parent.c_str(), 0500), 0);
  Status s;
  WithoutDacOverride([&] { s = OpenStatus(parent + "/state"); });
  chmod(parent.c_str(), 0700);
  EXPECT_EQ(s.code(), StatusCode::kPermissionDenied) << s.ToString();
  Contains(s, parent + "/state");
}

// ---- damaged databases: a clear error naming the dir, never a crash, never a silent reset.

std::string MakeStoreWithData(const testsupport::StateDir& tmp) {
  auto store = testsupport::OpenStateStore(tmp.path());
  auto w = store->LoadDedupWindow(testsupport::StateIdentity("incident"), DedupPolicy{2, 1000});
  for (int i = 0; i < 200; ++i) EXPECT_TRUE((*w)->Insert({100, testsupport::HexId(i), 0}));
  EXPECT_TRUE(store
                  ->Commit(testsupport::StateIdentity("incident"),
                           {100, testsupport::HexId(199), Phase::kStream}, **w)
                  .ok());
  return tmp.path();  // closing flushes: the data is in SST files now
}

void Overwrite(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f << bytes;
}

std::string FindFile(const std::string& dir, std::string_view pattern, bool suffix) {
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (suffix ? name.ends_with(pattern) : name.starts_with(pattern)) return e.path().string();
  }
  return "";
}

void ExpectRefusedAndUntouched(const std::string& dir, const std::string& damaged) {
  const auto size_before = std::filesystem::file_size(damaged);
  Status s = OpenStatus(dir);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.code(), StatusCode::kInternal) << s.ToString();
  std::printf("refused as: %s\n", s.ToString().c_str());
  Contains(s, "state dir " + dir);
  // The damaged file was not replaced by a fresh empty database.
  EXPECT_EQ(std::filesystem::file_size(damaged), size_before);
  // Refusing again gives the same answer (no half-repaired state).
  EXPECT_EQ(OpenStatus(dir).code(), s.code());
}

TEST_F(StateStoreOpenTest, GarbageCurrentFileIsDataLoss) {
  TempDir tmp;
  const std::string dir = MakeStoreWithData(tmp);
  Overwrite(dir + "/CURRENT", "garbage without newline");
  Status s = OpenStatus(dir);
  EXPECT_EQ(s.code(), StatusCode::kDataLoss) << s.ToString();
  ExpectRefusedAndUntouched(dir, dir + "/CURRENT");
}

TEST_F(StateStoreOpenTest, GarbageManifestIsRefused) {
  TempDir tmp;
  const std::string dir = MakeStoreWithData(tmp);
  const std::string manifest = FindFile(dir, "MANIFEST-", false);
  ASSERT_FALSE(manifest.empty());
  Overwrite(manifest, std::string(300, '\x5a'));
  Status s = OpenStatus(dir);
  EXPECT_EQ(s.code(), StatusCode::kDataLoss) << s.ToString();
  ExpectRefusedAndUntouched(dir, manifest);
}

TEST_F(StateStoreOpenTest, TruncatedTableFileIsDataLoss) {
  TempDir tmp;
  const std::string dir = MakeStoreWithData(tmp);
  const std::string sst = FindFile(dir, ".sst", true);
  ASSERT_FALSE(sst.empty());
  std::filesystem::resize_file(sst, std::filesystem::file_size(sst) / 2);
  Status s = OpenStatus(dir);
  EXPECT_EQ(s.code(), StatusCode::kDataLoss) << s.ToString();
  ExpectRefusedAndUntouched(dir, sst);
}

}  // namespace
}  // namespace snowcar::state
