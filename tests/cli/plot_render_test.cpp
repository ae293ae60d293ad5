// Rendering with gnuplot (label `render`: needs gnuplot installed, which
// scripts/install-deps.sh does; the arm64 leg, which runs only `unit` under
// qemu, has no arm64 gnuplot and so does not run these). A missing gnuplot
// fails these tests: they never skip.
//
// Each PNG is checked for its signature, the IHDR size asked for and, decoded
// with zlib (IDAT inflated, scanline filters undone), for content: more than
// one colour, and for the heatmap several saturated colours (its cells and
// colour box), which a blank or grey-only image cannot have.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <vector>

#include <zlib.h>

#include "gnuplot_render.h"
#include "run_plot.h"
#include "sweep_fixture.h"
#include "sweep_plot.h"

namespace energy::cli {
namespace {

struct Image {
  uint32_t width = 0, height = 0;
  std::set<uint32_t> colours;  // 0xRRGGBB of each pixel seen
  size_t saturated = 0;        // distinct colours whose channels differ by more than 96
};

uint32_t be32(const std::string& s, size_t at) {
  uint32_t v = 0;
  for (size_t i = 0; i < 4; ++i) v = (v << 8) | static_cast<unsigned char>(s[at + i]);
  return v;
}

int paeth(int a, int b, int c) {
  int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

// Undoes the filter of each scanline in place (8-bit samples, `bpp` bytes a pixel).
void unfilter(std::vector<unsigned char>& raw, size_t stride, size_t rows, size_t bpp) {
  for (size_t y = 0; y < rows; ++y) {
    unsigned char* line = &raw[y * (stride + 1)];
    const unsigned char* up = y ? line - (stride + 1) + 1 : nullptr;
    for (size_t x = 0; x < stride; ++x) {
      int a = x >= bpp ? line[1 + x - bpp] : 0, b = up ? up[x] : 0, c = up && x >= bpp ? up[x - bpp] : 0;
      int add = line[0] == 1 ? a : line[0] == 2 ? b : line[0] == 3 ? (a + b) / 2 : line[0] == 4 ? paeth(a, b, c) : 0;
      line[1 + x] = static_cast<unsigned char>(line[1 + x] + add);
    }
  }
}

void count_colours(const std::vector<unsigned char>& raw, Image& img, size_t bpp) {
  size_t stride = img.width * bpp;
  for (size_t y = 0; y < img.height; ++y) {
    for (size_t x = 0; x < img.width; ++x) {
      const unsigned char* p = &raw[y * (stride + 1) + 1 + x * bpp];
      img.colours.insert(static_cast<uint32_t>(p[0]) << 16 | static_cast<uint32_t>(p[1]) << 8 | p[2]);
    }
  }
  for (uint32_t c : img.colours) {
    int r = static_cast<int>(c >> 16), g = static_cast<int>((c >> 8) & 0xff), b = static_cast<int>(c & 0xff);
    if (std::max({r, g, b}) - std::min({r, g, b}) > 96) ++img.saturated;
  }
}

// Reads an 8-bit RGB or RGBA PNG (what pngcairo writes).
Image read_png(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Image img;
  EXPECT_GT(s.size(), 33u) << path;
  if (s.size() <= 33) return img;
  EXPECT_EQ(s.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8)) << path;
  EXPECT_EQ(s.substr(12, 4), "IHDR");
  img.width = be32(s, 16), img.height = be32(s, 20);
  int depth = static_cast<unsigned char>(s[24]), type = static_cast<unsigned char>(s[25]);
  EXPECT_EQ(depth, 8);
  EXPECT_TRUE(type == 2 || type == 6) << "colour type " << type;
  std::string idat;
  for (size_t at = 8; at + 8 <= s.size(); at += 12 + be32(s, at)) {
    if (s.compare(at + 4, 4, "IDAT") == 0) idat += s.substr(at + 8, be32(s, at));
  }
  size_t bpp = type == 6 ? 4 : 3;
  std::vector<unsigned char> raw(img.height * (img.width * bpp + 1));
  uLongf size = raw.size();
  EXPECT_EQ(uncompress(raw.data(), &size, reinterpret_cast<const Bytef*>(idat.data()), idat.size()), Z_OK);
  EXPECT_EQ(size, raw.size());
  unfilter(raw, img.width * bpp, img.height, bpp);
  count_colours(raw, img, bpp);
  return img;
}

class PlotRender : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/energyctl-plot-test-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    auto g = find_gnuplot();
    ASSERT_TRUE(g.ok()) << g.error().message;  // install-deps.sh installs it: never skip
    gnuplot_ = *g;
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  std::string dir_, gnuplot_;
};

TEST_F(PlotRender, SweepPngsHaveTheSizeAskedForAndContent) {
  auto results = sweep_results_from(fixture());
  ASSERT_TRUE(results.ok());
  PlotOptions o;
  o.dir = dir_, o.width = 480, o.height = 360;
  auto plots = sweep_plots(*results, o);
  ASSERT_EQ(plots.plots.size(), 3u);
  for (const auto& p : plots.plots) {
    auto st = render_plot(gnuplot_, p);
    ASSERT_TRUE(st.ok()) << st.error().message;
    Image img = read_png(p.output);
    EXPECT_EQ(img.width, 480u) << p.output;
    EXPECT_EQ(img.height, 360u) << p.output;
    EXPECT_GT(img.colours.size(), 2u) << p.output;
    EXPECT_GE(img.saturated, 1u) << p.output;
  }
  EXPECT_GE(read_png(plots.plots[0].output).saturated, 4u) << "heatmap cells of one colour";
}

TEST_F(PlotRender, RunPowerPngHasTheSizeAskedForAndContent) {
  nlohmann::json report = {{"run", {{"id", 3}, {"name", "r"}, {"start_ns", 0}}},
                           {"clock_events", {{{"boot_ns", 500'000'000}, {"kind", "pinned"}, {"domain", "gpu"}}}}};
  std::vector<nlohmann::json> rows;
  for (int64_t i = 0; i < 10; ++i) {
    rows.push_back({{"rail", "VDD_IN"}, {"t_ns", i * 100'000'000}, {"power_uw", 4'000'000 + i * 100'000}});
    rows.push_back({{"rail", "VDD_GPU"}, {"t_ns", i * 100'000'000}, {"power_uw", 1'000'000 + (i % 3) * 300'000}});
  }
  PlotOptions o;
  o.width = 400, o.height = 300;
  auto p = run_power_plot(report, rows, o, dir_ + "/run.png");
  ASSERT_TRUE(p.ok()) << p.error().message;
  auto st = render_plot(gnuplot_, *p);
  ASSERT_TRUE(st.ok()) << st.error().message;
  Image img = read_png(dir_ + "/run.png");
  EXPECT_EQ(img.width, 400u);
  EXPECT_EQ(img.height, 300u);
  EXPECT_GE(img.saturated, 2u) << "two rails' lines";
}

TEST_F(PlotRender, GnuplotFailureCarriesItsStderr) {
  Plot p{dir_ + "/bad.png",
         "set terminal pngcairo size 100,100\nset output '" + dir_ + "/bad.png'\nplot no_such(x)\n",
         {}};
  auto st = render_plot(gnuplot_, p);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("gnuplot failed (exit status"), std::string::npos) << st.error().message;
  EXPECT_NE(st.error().message.find("no_such"), std::string::npos) << st.error().message;
}

TEST_F(PlotRender, TemporaryDirectoryIsRemoved) {
  ::setenv("TMPDIR", dir_.c_str(), 1);
  Plot p{dir_ + "/ok.svg",
         "set terminal svg size 100,100\nset output '" + dir_ + "/ok.svg'\nplot 'd.dat' with lines\n",
         {{"d.dat", "1 1\n2 2\n"}}};
  auto st = render_plot(gnuplot_, p);
  ::unsetenv("TMPDIR");
  ASSERT_TRUE(st.ok()) << st.error().message;
  std::vector<std::string> left;
  for (const auto& e : std::filesystem::directory_iterator(dir_)) left.push_back(e.path().filename().string());
  EXPECT_EQ(left, std::vector<std::string>{"ok.svg"});
}

}  // namespace
}  // namespace energy::cli
