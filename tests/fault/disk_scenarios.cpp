// The state store's disk misbehaving: state.dir on a small tmpfs that fills up or turns
// read-only under a running source, and a state.dir whose RocksDB files were damaged while
// the sidecar was down.
#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <set>

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
    std::string chunk(64 * 1024, 'x');
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

// Disk full under a running source, a stop and a start while it is full, then space back.
Row DiskFull() {
  Row row;
  row.scenario = "disk full under state.dir (16 MiB tmpfs filled)";
  row.rounds = 1;
  SourceRig rig(300);
  SmallDisk disk(rig.dir().File("disk"), 16);
  if (!CanMount(row, disk)) return row;
  const std::string state_dir = rig.dir().File("disk") + "/state";
  rig.sidecar().props()["state.dir"] = state_dir;
  if (!rig.sidecar().Start()) {
    row.Fail(rig.sidecar().last_error());
    return row;
  }
  (void)rig.StartWriter(40);
  testsupport::WaitFor(
      [&] {
        return rig.Table().contains("rows_emitted") &&
               rig.Table().at("rows_emitted").as_int64() >= 300;
      },
      30s, 50ms);
  disk.Fill();
  ++row.faults;
  // Running on a full disk: an error on the socket, an exit, or (RocksDB writes into WAL
  // space it reserved ahead) nothing to see yet.
  std::string seen;
  const bool noticed = testsupport::WaitFor(
      [&] {
        if (!rig.sidecar().running()) return true;
        if (rig.sidecar().WaitExit(1ms).ok()) return true;
        seen = Field(rig.Table(), "last_error");
        return !seen.empty();
      },
      5s, 100ms);
  if (!rig.sidecar().running()) {
    row.Note("exited while full");
  } else if (noticed) {
    row.Note("socket while full: " + seen.substr(0, 120));
  } else {
    row.Note("kept running 5 s on the full disk (WAL space reserved ahead)");
  }
  // A graceful stop on the full disk: any clean exit code, but not a crash.
  if (rig.sidecar().running()) {
    const auto status = rig.sidecar().Terminate();
    if (!status.exited) row.Fail("SIGTERM on a full disk: " + status.ToString());
    row.Note("SIGTERM while full: " + status.ToString());
  }
  disk.Fill();  // files RocksDB deleted on the way out freed some space
  ExpectRefusal(row, rig, state_dir, "while full");
  if (rig.sidecar().running()) {
    // Started on the full disk: the writer keeps adding rows, so commits need space now.
    std::string error;
    std::optional<testsupport::ExitStatus> exit;
    testsupport::WaitFor(
        [&] {
          disk.Fill();
          if (auto st = rig.sidecar().WaitExit(1ms); st.ok()) {
            exit = *st;
            return true;
          }
          error = Field(rig.Table(), "last_error");
          return !error.empty();
        },
        8s, 100ms);
    if (exit) {
      row.Note("then exited: " + exit->ToString());
      if (exit->ok()) row.Fail("exited 0 after a failed write");
      if (!exit->exited) row.Fail("crashed on the full disk: " + exit->ToString());
    } else if (!error.empty()) {
      row.Note("then socket: " + error.substr(0, 120));
    } else {
      row.Note("ran 8 s on it without a visible error");
    }
  }
  disk.Unfill();
  if (rig.sidecar().running()) {
    const int64_t before =
        rig.Table().contains("commits") ? rig.Table().at("commits").as_int64() : 0;
    const bool moving = testsupport::WaitFor(
        [&] {
          auto t = rig.Table();
          return t.contains("commits") && t.at("commits").as_int64() > before;
        },
        10s, 100ms);
    row.Note(moving ? "committing again once space came back" : "no commit after space came back");
    rig.sidecar().Terminate();
  }
  (void)rig.StopWriter();
  if (!rig.sidecar().Start()) {
    row.Fail("restart after space came back: " + rig.sidecar().last_error());
    return row;
  }
  rig.Settle(row);
  row.bound = 2 * SourceRig::kBatch;  // at most a crash's worth, should a commit have failed
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
  SmallDisk disk(rig.dir().File("disk"), 16);
  if (!CanMount(row, disk)) return row;
  const std::string state_dir = rig.dir().File("disk") + "/state";
  rig.sidecar().props()["state.dir"] = state_dir;
  if (!rig.sidecar().Start()) {
    row.Fail(rig.sidecar().last_error());
    return row;
  }
  (void)rig.StartWriter(40);
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
