// SPDX-License-Identifier: Apache-2.0
// The state store's disk misbehaving: state.dir on a small tmpfs that fills up or turns
// read-only under a running source, and a state.dir whose RocksDB files were damaged while
// the sidecar was down.
#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <thread>

#include "scenarios.h"
#include "source_rig.h"
#include "support/wait.h"

namespace snowcar::fault {
namespace {

namespace fs = std::filesystem;

Status Run(const std::vector<std::string>& argv) {
  testsupport::ChildOptions opts;
  opts.args.assign(argv.begin() + 1, argv.end());
  opts.capture_stderr = true;
  auto r = testsupport::RunToCompletion(argv[0], opts, 20s);
  if (!r.ok()) return r.status();
  if (!r->status.ok()) return Status::Internal(argv[0] + " " + argv[1] + ": " + r->err);
  return Status::Ok();
}

// A tmpfs of `megabytes` at `dir`, unmounted when this goes away.
class SmallDisk {
 public:
  SmallDisk(std::string dir, int megabytes) : dir_(std::move(dir)) {
    fs::create_directories(dir_);
    status_ = Run(
        {"mount", "-t", "tmpfs", "-o", "size=" + std::to_string(megabytes) + "m", "tmpfs", dir_});
  }
  ~SmallDisk() {
    if (status_.ok()) (void)Run({"umount", "-l", dir_});
  }
  const Status& status() const { return status_; }
  Status Remount(bool read_only) {
    return Run({"mount", "-o", std::string("remount,") + (read_only ? "ro" : "rw"), dir_});
  }
  // Appends to a filler file until the disk is full (again: space freed since is taken too);
  // the bytes written.
  int64_t Fill() {
    const std::string path = dir_ + "/filler";
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
    if (fd < 0) return 0;
    std::string chunk(size_t{64} * 1024, 'x');
    int64_t total = 0;
    for (;;) {
      const ssize_t n = ::write(fd, chunk.data(), chunk.size());
      if (n <= 0) break;
      total += n;
    }
    ::close(fd);
    return total;
  }
  void Unfill() { fs::remove(dir_ + "/filler"); }

 private:
  std::string dir_;
  Status status_;
};

std::string Field(const boost::json::object& o, const char* name) {
  const auto* v = o.if_contains(name);
  if (v == nullptr || v->is_null()) return "";
  return v->is_string() ? std::string(v->as_string()) : boost::json::serialize(*v);
}

// Root and a tmpfs are needed; otherwise the row says SKIPPED and why.
bool CanMount(Row& row, const SmallDisk& disk) {
  if (::geteuid() != 0) {
    row.skipped = true;
    row.Note("needs root to mount a tmpfs");
    return false;
  }
  if (!disk.status().ok()) {
    row.skipped = true;
    row.Note("cannot mount a tmpfs: " + disk.status().ToString());
    return false;
  }
  return true;
}

// A start that must be refused: non-zero exit, a message naming state.dir.
void ExpectRefusal(Row& row, SourceRig& rig, const std::string& state_dir, const char* when) {
  if (rig.sidecar().Start(/*wait_ready=*/false)) {
    row.Note(std::string("started ") + when);
    return;
  }
  auto status = rig.sidecar().WaitExit(5s);
  if (!status.ok() || status->ok()) {
    row.Fail(std::string("neither running nor refused ") + when);
  } else if (!status->exited) {
    row.Fail(std::string("crashed ") + when + ": " + status->ToString());
  } else if (rig.sidecar().Stderr().find(state_dir) == std::string::npos) {
    row.Fail(std::string("refused ") + when + " without naming state.dir");
  } else {
    row.Note(std::string("refused ") + when + " (" + status->ToString() + ", names state.dir)");
  }
}

int64_t Counter(const boost::json::object& table, const char* name) {
  const auto* v = table.if_contains(name);
  return v != nullptr && v->is_int64() ? v->as_int64() : -1;
}

// Mounts `disk`, puts the rig's state.dir at `state_dir` on it, and starts the sidecar and a
// writer of 40 rows a second. False when the disk cannot be had (the row says why) or the
// sidecar does not start (the row failed).
bool StartOnDisk(Row& row, SourceRig& rig, const SmallDisk& disk, const std::string& state_dir) {
  if (!CanMount(row, disk)) return false;
  rig.sidecar().props()["state.dir"] = state_dir;
  if (!rig.sidecar().Start()) {
    row.Fail(rig.sidecar().last_error());
    return false;
  }
  (void)rig.StartWriter(40);
  return true;
}

// Disk full under a running source: commits are refused (the state store keeps 8 MiB in
// reserve), the table stops advancing after one window and says why; space comes back and it
// resumes without a restart. Then a SIGTERM and a start while full, and a start after.
Row DiskFull() {
  Row row;
  row.scenario = "disk full under state.dir (64 MiB tmpfs filled)";
  row.rounds = 2;
  SourceRig rig(300);
  SmallDisk disk(rig.dir().File("disk"), 64);
  const std::string state_dir = rig.dir().File("disk") + "/state";
  if (!StartOnDisk(row, rig, disk, state_dir)) return row;
  testsupport::WaitFor([&] { return Counter(rig.Table(), "rows_emitted") >= 300; }, 30s, 50ms);

  // 1. Full while running: the next commit is refused and the table says so.
  disk.Fill();
  ++row.faults;
  std::string seen;
  const bool reported = testsupport::WaitFor(
      [&] {
        seen = Field(rig.Table(), "last_error");
        return seen.find("state commit failed") != std::string::npos;
      },
      5s, 50ms);
  if (!reported) {
    row.Fail("no refused commit on the socket 5 s after the disk filled (last_error: " +
             seen.substr(0, 120) + ")");
  } else if (seen.find(state_dir) == std::string::npos) {
    row.Fail("the refused commit does not name state.dir: " + seen.substr(0, 160));
  }
  // What the SnowcarStateWriteErrors alert watches (k8s/monitoring).
  const std::string metrics = rig.sidecar().GetText("/metrics");
  if (metrics.find("\nsnowcar_state_write_errors_total 0\n") != std::string::npos ||
      metrics.find("\nsnowcar_state_write_errors_total ") == std::string::npos) {
    row.Fail("snowcar_state_write_errors_total did not count the refused commit");
  }
  // It stops advancing: at most one window (batch.size rows) goes out without a commit.
  const int64_t commits_full = Counter(rig.Table(), "commits");
  const int64_t emitted_full = Counter(rig.Table(), "rows_emitted");
  std::this_thread::sleep_for(3s);
  const int64_t emitted_later = Counter(rig.Table(), "rows_emitted");
  if (!rig.sidecar().running()) {
    row.Fail("exited on a full disk: " + rig.sidecar().Stderr().substr(0, 200));
    return row;
  }
  if (Counter(rig.Table(), "commits") != commits_full) row.Fail("committed on a full disk");
  if (emitted_later - emitted_full > SourceRig::kBatch) {
    row.Fail("emitted " + std::to_string(emitted_later - emitted_full) +
             " rows in 3 s without a commit (window " + std::to_string(SourceRig::kBatch) + ")");
  }
  row.Note("paused: " + std::to_string(emitted_later - emitted_full) + " rows in 3 s, 0 commits");

  // 2. Space back: the table resumes by itself.
  disk.Unfill();
  const bool resumed = testsupport::WaitFor(
      [&] {
        const auto t = rig.Table();
        return Counter(t, "commits") > commits_full &&
               Counter(t, "rows_emitted") > emitted_later + SourceRig::kBatch;
      },
      10s, 100ms);
  if (!resumed) row.Fail("no commit 10 s after space came back");
  row.Note(resumed ? "resumed without a restart" : "did not resume");

  // 3. Full again: a SIGTERM is a clean stop (the final flush is skipped; the WAL holds it all).
  disk.Fill();
  ++row.faults;
  testsupport::WaitFor(
      [&] {
        return Field(rig.Table(), "last_error").find("state commit failed") != std::string::npos;
      },
      5s, 50ms);
  const auto stopped = rig.sidecar().Terminate();
  if (!stopped.ok()) row.Fail("SIGTERM on a full disk: " + stopped.ToString());
  row.Note("SIGTERM while full: " + stopped.ToString());
  disk.Fill();  // whatever RocksDB freed on the way out
  ExpectRefusal(row, rig, state_dir, "while full");
  if (rig.sidecar().running()) {
    row.Fail("started on a full disk");
    rig.sidecar().Terminate();
  }
  disk.Unfill();
  (void)rig.StopWriter();
  if (!rig.sidecar().Start()) {
    row.Fail("restart after space came back: " + rig.sidecar().last_error());
    return row;
  }
  rig.Settle(row);
  // The stop on the full disk was graceful, but its last commit was refused: up to one
  // window is re-emitted per full-disk episode that ended in a stop.
  row.bound = SourceRig::kBatch;
  const auto status = rig.sidecar().Terminate();
  if (!status.ok()) row.Fail("final SIGTERM: " + status.ToString());
  return row;
}

// state.dir read-only at start (a tmpfs remounted ro while the sidecar is down: Linux refuses
// to remount a filesystem read-only while a process has files open for writing on it).
Row ReadOnly() {
  Row row;
  row.scenario = "state.dir read-only at start, then writable again";
  row.rounds = 1;
  row.bound = 0;  // the stop before was graceful
  SourceRig rig(300);
  SmallDisk disk(rig.dir().File("disk"), 64);
  const std::string state_dir = rig.dir().File("disk") + "/state";
  if (!StartOnDisk(row, rig, disk, state_dir)) return row;
  testsupport::WaitFor(
      [&] {
        return rig.Table().contains("rows_emitted") &&
               rig.Table().at("rows_emitted").as_int64() >= 300;
      },
      30s, 50ms);
  if (const auto status = rig.sidecar().Terminate(); !status.ok()) {
    row.Fail("SIGTERM: " + status.ToString());
  }
  if (Status s = disk.Remount(true); !s.ok()) {
    row.Fail(s.ToString());
    return row;
  }
  ++row.faults;
  ExpectRefusal(row, rig, state_dir, "on a read-only state.dir");
  if (rig.sidecar().running()) {
    row.Fail("ran on a read-only state.dir");
    rig.sidecar().Terminate();
  }
  if (Status s = disk.Remount(false); !s.ok()) row.Fail(s.ToString());
  (void)rig.StopWriter();
  if (!rig.sidecar().Start()) {
    row.Fail("restart on the writable dir: " + rig.sidecar().last_error());
    return row;
  }
  rig.Settle(row);
  const auto status = rig.sidecar().Terminate();
  if (!status.ok()) row.Fail("final SIGTERM: " + status.ToString());
  return row;
}

std::set<std::string> FileNames(const fs::path& dir) {
  std::set<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.insert(e.path().filename().string());
  return out;
}

// The first file in `dir` whose name starts with `prefix` and ends with `suffix`.
std::optional<fs::path> FindFile(const fs::path& dir, const std::string& prefix,
                                 const std::string& suffix) {
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string n = e.path().filename().string();
    if (n.rfind(prefix, 0) == 0 && n.size() >= suffix.size() &&
        n.compare(n.size() - suffix.size(), suffix.size(), suffix) == 0) {
      return e.path();
    }
  }
  return std::nullopt;
}

void Truncate(const fs::path& file, bool to_zero) {
  const auto size = fs::file_size(file);
  fs::resize_file(file, to_zero ? 0 : size / 2);
}

}  // namespace

std::vector<Row> DiskFaults(const RunOptions&) { return {DiskFull(), ReadOnly()}; }

std::vector<Row> CorruptState(const RunOptions&) {
  std::vector<Row> rows;
  SourceRig rig(300);
  // A state dir with cursors and dedup entries, and RocksDB files on disk (a graceful stop).
  Row setup;
  setup.scenario = "setup";
  if (!rig.sidecar().Start()) {
    setup.Fail(rig.sidecar().last_error());
    return {setup};
  }
  rig.Settle(setup);
  if (!rig.sidecar().Terminate().ok()) setup.Fail("SIGTERM");
  const fs::path good = rig.dir().File("state");
  struct Damage {
    std::string name;
    std::function<bool(const fs::path&)> apply;  // false: nothing to damage
  };
  const std::vector<Damage> plan = {
      {"CURRENT truncated to 0 bytes",
       [](const fs::path& d) {
         Truncate(d / "CURRENT", true);
         return true;
       }},
      {"CURRENT names a missing MANIFEST",
       [](const fs::path& d) {
         std::ofstream(d / "CURRENT", std::ios::trunc) << "MANIFEST-999999\n";
         return true;
       }},
      {"MANIFEST truncated to half",
       [](const fs::path& d) {
         auto m = FindFile(d, "MANIFEST-", "");
         if (!m) return false;
         Truncate(*m, false);
         return true;
       }},
      {"SST file truncated to half",
       [](const fs::path& d) {
         auto s = FindFile(d, "", ".sst");
         if (!s) return false;
         Truncate(*s, false);
         return true;
       }},
  };
  for (const auto& damage : plan) {
    Row row;
    row.scenario = damage.name;
    row.rounds = 1;
    row.bound = -1;
    const fs::path dir = rig.dir().File("state-" + std::to_string(rows.size()));
    fs::copy(good, dir, fs::copy_options::recursive);
    if (!damage.apply(dir)) {
      row.skipped = true;
      row.Note("no such file in the state dir after a short run");
      rows.push_back(row);
      continue;
    }
    ++row.faults;
    const auto before = FileNames(dir);
    rig.sidecar().props()["state.dir"] = dir.string();
    // It must refuse at once: a sidecar that comes up on a damaged store has reset it.
    const bool up = rig.sidecar().Start(/*wait_ready=*/false);
    if (up) {
      row.Fail("started on the damaged state dir");
      rig.sidecar().Terminate();
    } else {
      auto status = rig.sidecar().WaitExit(1s);
      const std::string err = rig.sidecar().Stderr();
      if (!status.ok()) {
        row.Fail("neither up nor exited");
      } else if (status->ok()) {
        row.Fail("exited 0");
      } else {
        row.Note(status->ToString());
      }
      if (err.find(dir.string()) == std::string::npos) row.Fail("message does not name state.dir");
    }
    const auto after = FileNames(dir);
    for (const auto& f : before) {
      if (!after.count(f)) row.Fail(f + " is gone: the store was reset");
    }
    if (!row.failed_check) row.Note("refused naming state.dir; every file still there");
    rows.push_back(row);
  }
  return rows;
}

}  // namespace snowcar::fault
