// SPDX-License-Identifier: Apache-2.0
// A started in-process emulator on port 0 with an incident table of known size.
#pragma once

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <memory>
#include <string>

#include "http_client.h"
#include "snowcar/testbed/emulator/data_gen.h"
#include "snowcar/testbed/emulator/emulator_server.h"

namespace snowcar::emulator::testing {

class EmulatorTest : public ::testing::Test {
 protected:
  // Rows generated into "incident" before each test.
  virtual size_t IncidentRows() const { return 73; }
  virtual EmulatorOptions Options() const { return {}; }

  void SetUp() override {
    server_ = std::make_unique<EmulatorServer>(Options());
    GenOptions gen;
    gen.rows = IncidentRows();
    gen.seed = 3;
    ASSERT_TRUE(server_->store().CreateTable("incident").ok());
    if (gen.rows > 0) {
      ASSERT_TRUE(Populate(server_->store(), "incident", gen).ok());
    }
    const Status st = server_->Start();
    ASSERT_TRUE(st.ok()) << st.ToString();
    base_ = server_->base_url();
  }
  void TearDown() override { server_.reset(); }

  std::string Url(const std::string& path) const { return base_ + path; }
  static boost::json::value Json(const std::string& body) { return boost::json::parse(body); }

  std::unique_ptr<EmulatorServer> server_;
  std::string base_;
};

}  // namespace snowcar::emulator::testing
