// SPDX-License-Identifier: Apache-2.0
// Loopback ports for tests of "nothing answers there".
//
// RefusingPort: a port that refuses every connection for as long as the object lives.
//
// Tests of "the server is gone" used to start a server, stop it and reuse its port; any other
// test binding port 0 meanwhile could take that port and answer, so the test saw a reply it did
// not expect (seen under ctest -j6). This port stays bound but never listens: the kernel
// refuses connections to it, and no one else can bind it until the object goes away.
#pragma once

#include <cstdint>
#include <string>

namespace snowcar::testsupport {

class RefusingPort {
 public:
  // Aborts the test binary with the reason when no socket can be bound (nothing to test then).
  RefusingPort();
  ~RefusingPort();
  RefusingPort(const RefusingPort&) = delete;
  RefusingPort& operator=(const RefusingPort&) = delete;

  int port() const { return port_; }
  // "http://127.0.0.1:<port>"
  std::string http_url() const;

 private:
  int fd_ = -1;
  int port_ = 0;
};

// A loopback port that was free a moment ago (bound to port 0, then closed); 0 when none could
// be had. For a test that starts its own server on that port later (an instance coming back):
// until then connections there are refused. Unlike RefusingPort, another test may take it
// meanwhile, so use it only where the test binds it itself.
uint16_t UnusedPort();

}  // namespace snowcar::testsupport
