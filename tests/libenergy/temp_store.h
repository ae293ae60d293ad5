// Test fixture: a writer Store on a fresh database in a temporary directory,
// removed with everything in it after the test. Fixtures derive from it and
// call TempStoreTest::SetUp() first (returning if it failed).
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "energy/store.h"

namespace energy {

// Two rails of one INA3221 (1-0040): VDD_IN on channel 1 and VDD_SOC on
// `soc_channel`, as the store and writer tests use them.
inline std::vector<RailInfo> two_test_rails(int soc_channel) {
  RailInfo a;
  a.label = "VDD_IN";
  a.device = "1-0040";
  a.channel = 1;
  RailInfo b = a;
  b.label = "VDD_SOC";
  b.channel = soc_channel;
  return {a, b};
}

class TempStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/energy-test-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    reopen();
  }
  void TearDown() override {
    store_.reset();
    std::filesystem::remove_all(dir_);
  }
  std::string path() const { return dir_ + "/energyd.db"; }
  // Opens the writer store on path() (again, after closing the open one).
  void reopen() {
    store_.reset();
    auto s = Store::open(path(), StoreRole::kWriter, 1000);
    ASSERT_TRUE(s.ok()) << s.error().describe();
    store_ = std::move(s).value();
  }

  std::string dir_;
  std::unique_ptr<Store> store_;
};

}  // namespace energy
