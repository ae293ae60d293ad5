// energyctl sweep plot and energyctl plot RUN end to end on a simulated
// board (the simulator's constant 5 W rails): the files are written where
// asked, named on stdout, and are PNGs. Needs gnuplot (scripts/install-deps.sh
// installs it; it is never skipped). The images' content is checked by
// tests/cli/plot_render_test.cpp.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <thread>

#include "board_fixture.h"
#include "raw_client.h"

namespace energy::testing {
namespace {

using nlohmann::json;

bool is_png(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char sig[8] = {};
  in.read(sig, sizeof sig);
  return in && std::string(sig, 8) == std::string("\x89PNG\r\n\x1a\n", 8);
}

class PlotCli : public ::testing::Test {
 protected:
  void SetUp() override {
    daemon_ = std::make_unique<SimulatedDaemon>(constant_orin_nano());
    ASSERT_TRUE(daemon_->started()) << daemon_->setup_error();
    fd_ = connect_to(daemon_->socket());
    ASSERT_GE(fd_, 0);
  }
  void TearDown() override {
    if (fd_ >= 0) ::close(fd_);
    daemon_.reset();
  }
  json result(const std::string& verb, const json& args) {
    json reply = json::parse(call(fd_, verb, args), nullptr, false);
    EXPECT_TRUE(reply.value("ok", false)) << verb << ": " << reply.dump();
    return reply.value("result", json::object());
  }
  // A stopped run of ~30 ms with 8 items.
  int64_t measured() {
    int64_t id = result("mark.start", {{"name", "plot-run"}, {"items", 8}})["id"].get<int64_t>();
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    result("mark.stop", {{"run", id}});
    return id;
  }

  std::unique_ptr<SimulatedDaemon> daemon_;
  int fd_ = -1;
};

// A 1 x 2 GPU grid plus DVFS, one run per point: no heatmap (one clock axis),
// energy against time and against the GPU clock.
TEST_F(PlotCli, SweepPlotWritesAndNamesItsPngs) {
  json spec = {{"format", 1},
               {"axes", {{"clocks", {{{"domain", "gpu"}, {"hz", {306000000, 624750000}}}}}, {"params", json::array()}}},
               {"dvfs", true}};
  int64_t id = result("sweep.create", {{"name", "plot-grid"}, {"spec", spec}})["sweep"]["id"].get<int64_t>();
  for (int point = 0; point < 3; ++point)
    result("sweep.add_run", {{"sweep", id}, {"run", measured()}, {"point", point}, {"repeat", 0}, {"role", "measure"}});
  std::string dir = daemon_->dir();
  auto plot = daemon_->ctl({"sweep", "plot", std::to_string(id), "--out", dir});
  ASSERT_EQ(plot.exit_code, 0) << plot.err;
  std::string stem = dir + "/sweep-" + std::to_string(id);
  EXPECT_EQ(plot.out, stem + "-energy-time.png\n" + stem + "-energy-gpu.png\n");
  EXPECT_NE(plot.err.find("not drawn: heatmap"), std::string::npos) << plot.err;
  EXPECT_TRUE(is_png(stem + "-energy-time.png"));
  EXPECT_TRUE(is_png(stem + "-energy-gpu.png"));
  auto missing = daemon_->ctl({"sweep", "plot", std::to_string(id + 100), "--out", dir});
  EXPECT_EQ(missing.exit_code, 1) << missing.err;
}

TEST_F(PlotCli, RunPlotWritesThePowerTimeline) {
  int64_t run = measured();
  std::string path = daemon_->dir() + "/run.png";
  auto plot = daemon_->ctl({"plot", std::to_string(run), "--out", path});
  ASSERT_EQ(plot.exit_code, 0) << plot.err;
  EXPECT_EQ(plot.out, path + "\n");
  EXPECT_TRUE(is_png(path));
  auto bad = daemon_->ctl({"plot", std::to_string(run), "--out", daemon_->dir() + "/run.gif"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find(".png, .svg or .pdf"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace energy::testing
