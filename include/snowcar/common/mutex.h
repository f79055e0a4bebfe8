// SPDX-License-Identifier: Apache-2.0
// A mutex that clang's thread-safety analysis (-Wthread-safety) can follow.
//
//   mutable Mutex mu_;
//   int held_ SNOWCAR_GUARDED_BY(mu_) = 0;
//   void Add() { MutexLock lock(mu_); ++held_; }
//
// libstdc++'s std::mutex carries no capability attributes, so a member "guarded by mu_"
// could only say so in a comment. With this wrapper the clang build (the fuzz build, which
// also compiles every annotated file: tests/fuzz/CMakeLists.txt) refuses code that touches a
// guarded member without its lock. Under g++ the attributes are empty and the types are a
// plain std::mutex and its guard.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>

#if defined(__clang__)
#define SNOWCAR_TSA(x) __attribute__((x))
#else
#define SNOWCAR_TSA(x)
#endif

#define SNOWCAR_CAPABILITY(x) SNOWCAR_TSA(capability(x))
#define SNOWCAR_SCOPED_CAPABILITY SNOWCAR_TSA(scoped_lockable)
#define SNOWCAR_GUARDED_BY(x) SNOWCAR_TSA(guarded_by(x))
#define SNOWCAR_REQUIRES(...) SNOWCAR_TSA(requires_capability(__VA_ARGS__))
#define SNOWCAR_EXCLUDES(...) SNOWCAR_TSA(locks_excluded(__VA_ARGS__))
#define SNOWCAR_ACQUIRE(...) SNOWCAR_TSA(acquire_capability(__VA_ARGS__))
#define SNOWCAR_RELEASE(...) SNOWCAR_TSA(release_capability(__VA_ARGS__))

namespace snowcar {

class SNOWCAR_CAPABILITY("mutex") Mutex {
 public:
  void lock() SNOWCAR_ACQUIRE() { mu_.lock(); }
  void unlock() SNOWCAR_RELEASE() { mu_.unlock(); }

 private:
  std::mutex mu_;
};

// Holds a Mutex for its scope. Also a Lockable for CondVar, which unlocks and relocks it
// while it waits.
class SNOWCAR_SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex& mu) SNOWCAR_ACQUIRE(mu) : mu_(mu) { mu_.lock(); }
  ~MutexLock() SNOWCAR_RELEASE() { mu_.unlock(); }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

  void lock() SNOWCAR_ACQUIRE() { mu_.lock(); }
  void unlock() SNOWCAR_RELEASE() { mu_.unlock(); }

 private:
  Mutex& mu_;
};

// A condition variable over a MutexLock. Waits take no predicate: callers loop on their
// condition themselves, where the analysis can see that the lock is held while it is read.
class CondVar {
 public:
  void Wait(MutexLock& lock) { cv_.wait(lock); }
  // False when the deadline passed first.
  bool WaitUntil(MutexLock& lock, std::chrono::steady_clock::time_point deadline) {
    return cv_.wait_until(lock, deadline) == std::cv_status::no_timeout;
  }
  void NotifyAll() { cv_.notify_all(); }
  void NotifyOne() { cv_.notify_one(); }

 private:
  std::condition_variable_any cv_;
};

}  // namespace snowcar
