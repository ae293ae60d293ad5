// `energyd-sim run`: load the board, build the live board and its file
// system, mount it, open the control socket, feed the host's CPU load, serve
// until a signal, unmount.
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>

#include "cli_internal.h"
#include "control.h"
#include "control_server.h"
#include "fuse_server.h"
#include "host_load.h"
#include "live_board.h"
#include "live_fs.h"

namespace energy::sim {
namespace {

constexpr const char* kRunHelp =
    "Usage: energyd-sim run --board ID --l4t GEN --mount DIR --control SOCKET [options]\n\n"
    "Mounts the board's whole tree (DIR/sys, DIR/proc, DIR/etc, as `create` writes it) with\n"
    "FUSE and serves it live until SIGINT or SIGTERM, then unmounts. Every read computes\n"
    "its value from a power model at that instant (files are opened direct_io: a pread at\n"
    "offset 0 on a kept-open descriptor gives a fresh value); clock files are writable and\n"
    "checked as the kernel checks them. The control socket (framed JSON, see\n"
    "`energyd-sim help ctl` and sim/README.md) gives the exact energy of every rail, sets\n"
    "loads and rails, injects faults and renumbers or removes devices. SOCKET is created\n"
    "once the mount is live, so a script can wait for it; then `ready` is printed.\n\n"
    "  --board ID          a board id as `energyd-sim list` prints it (jetson-orin-nano)\n"
    "  --l4t GEN           L4T generation: 32, 35, 36 or 38\n"
    "  --mount DIR         mount point (created if missing, and then removed at exit)\n"
    "  --control SOCKET    path of the control socket (a stale one is replaced)\n"
    "  --rail NAME=MV:MA   hold rail NAME (label or rail id) at MV / MA, no ripple;\n"
    "                      repeatable; `ctl clear_rail` releases it\n"
    "  --seed N            seed of the ripple phases / frequencies and conversion grids (1)\n"
    "  --ripple PERCENT    ripple amplitude of every rail, 0..20 (3)\n"
    "  --cpu-load L        host (default: the host's /proc/stat load, sampled every 50 ms)\n"
    "                      or a fixed per-mille value 0..1000\n"
    "  --hwmon-offset N    add N to every hwmonN number\n"
    "  --iio-offset N      add N to every iio:deviceN number\n"
    "  --history SECONDS   how long the event log (and so the ground truth) is kept (3600)\n"
    "  --data FILE         board data file (default: see `energyd-sim help`)\n\n"
    "Needs /dev/fuse (and fusermount3 when not root). As root the mount is allow_other.\n"
    "Example:\n"
    "  energyd-sim run --board jetson-orin-nano --l4t 36 --mount /tmp/b --control /tmp/b.ctl &\n"
    "  energyd --root /tmp/b ...\n";

struct RunRequest {
  std::string board;
  int l4t = 0;
  std::string mount;
  std::string control;
  std::optional<std::string> data_file;
  LiveOptions live;
  TreeOptions tree_options;
};

struct RawRunArgs {
  std::optional<std::string> board, l4t, mount, control, data, seed, ripple, cpu_load, history, hwmon_offset,
      iio_offset;
  std::vector<std::string> rails;
};

Result<RawRunArgs> parse_raw_run(const std::vector<std::string>& args) {
  RawRunArgs raw;
  ArgParser parser;
  const std::pair<const char*, std::optional<std::string>*> options[] = {{"--board", &raw.board},
                                                                         {"--l4t", &raw.l4t},
                                                                         {"--mount", &raw.mount},
                                                                         {"--control", &raw.control},
                                                                         {"--data", &raw.data},
                                                                         {"--seed", &raw.seed},
                                                                         {"--ripple", &raw.ripple},
                                                                         {"--cpu-load", &raw.cpu_load},
                                                                         {"--history", &raw.history},
                                                                         {"--hwmon-offset", &raw.hwmon_offset},
                                                                         {"--iio-offset", &raw.iio_offset}};
  for (const auto& [name, value] : options) parser.option(name, value);
  parser.repeated("--rail", &raw.rails);
  Status parsed = parser.parse(args);
  if (!parsed) return parsed.take_error();
  for (const auto& [name, value] : {std::pair{"--board", &raw.board}, std::pair{"--l4t", &raw.l4t},
                                    std::pair{"--mount", &raw.mount}, std::pair{"--control", &raw.control}}) {
    if (!*value) return make_error(ErrorCode::kInvalid, std::string("option '") + name + "' is required");
  }
  return raw;
}

Result<std::int64_t> bounded(const std::optional<std::string>& text, const char* option, std::int64_t fallback,
                             std::int64_t low, std::int64_t high) {
  if (!text) return fallback;
  Result<std::int64_t> value = parse_integer(*text, option);
  if (value && (*value < low || *value > high)) {
    return make_error(ErrorCode::kInvalid,
                      std::string(option) + " must be " + std::to_string(low) + ".." + std::to_string(high));
  }
  return value;
}

Result<std::optional<std::uint32_t>> parse_cpu_load(const std::optional<std::string>& text) {
  if (!text || *text == "host") return std::optional<std::uint32_t>();
  Result<std::int64_t> permille = bounded(text, "--cpu-load", 0, 0, 1000);
  if (!permille) return make_error(ErrorCode::kInvalid, "--cpu-load must be 'host' or a per-mille value 0..1000");
  return std::optional<std::uint32_t>(static_cast<std::uint32_t>(*permille));
}

Status fill_live(const RawRunArgs& raw, LiveOptions& live) {
  Result<std::int64_t> seed = bounded(raw.seed, "--seed", 1, 0, INT64_MAX);
  Result<std::int64_t> ripple = bounded(raw.ripple, "--ripple", 3, 0, 20);
  Result<std::int64_t> history = bounded(raw.history, "--history", 3600, 10, std::int64_t{7} * 24 * 3600);
  Result<std::optional<std::uint32_t>> cpu_load = parse_cpu_load(raw.cpu_load);
  for (const Error* e : {seed ? nullptr : &seed.error(), ripple ? nullptr : &ripple.error(),
                         history ? nullptr : &history.error(), cpu_load ? nullptr : &cpu_load.error()}) {
    if (e != nullptr) return *e;
  }
  live.model.seed = static_cast<std::uint64_t>(*seed);
  live.model.ripple_fraction = static_cast<double>(*ripple) / 100.0;
  live.history_ns = *history * 1000000000LL;
  live.cpu_load_permille = *cpu_load;
  for (const std::string& text : raw.rails) {
    Result<RailOverride> rail = parse_rail_override(text);
    if (!rail) return rail.take_error();
    live.overrides.emplace_back(rail->name, rail->value);
  }
  return ok_status();
}

Result<RunRequest> parse_run(const std::vector<std::string>& args) {
  Result<RawRunArgs> raw = parse_raw_run(args);
  if (!raw) return raw.take_error();
  Result<int> l4t = parse_generation(*raw->l4t);
  Result<int> hwmon_offset = parse_offset(raw->hwmon_offset, "--hwmon-offset");
  Result<int> iio_offset = parse_offset(raw->iio_offset, "--iio-offset");
  for (const Error* e : {l4t ? nullptr : &l4t.error(), hwmon_offset ? nullptr : &hwmon_offset.error(),
                         iio_offset ? nullptr : &iio_offset.error()}) {
    if (e != nullptr) return *e;
  }
  RunRequest request{*raw->board, *l4t, *raw->mount, *raw->control, raw->data, {}, {*hwmon_offset, *iio_offset}};
  Status live = fill_live(*raw, request.live);
  if (!live) return live.take_error();
  return request;
}

std::int64_t boottime_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_BOOTTIME, &ts);
  return std::int64_t{ts.tv_sec} * 1000000000LL + ts.tv_nsec;
}

// A mount point the simulator created is removed again at exit.
class MountPoint {
 public:
  static Result<MountPoint> prepare(const std::string& path) {
    if (::mkdir(path.c_str(), 0755) == 0) return MountPoint(path, true);
    if (errno == EEXIST) return MountPoint(path, false);
    return errno_error("cannot create the mount point " + path);
  }
  MountPoint(MountPoint&& other) noexcept
      : path_(std::move(other.path_)), created_(std::exchange(other.created_, false)) {}
  MountPoint(const MountPoint&) = delete;
  MountPoint& operator=(const MountPoint&) = delete;
  MountPoint& operator=(MountPoint&&) = delete;
  ~MountPoint() {
    if (created_) ::rmdir(path_.c_str());
  }

 private:
  MountPoint(std::string path, bool created) : path_(std::move(path)), created_(created) {}
  std::string path_;
  bool created_ = false;
};

void print_ready(const CliContext& cli, const RunRequest& request, const BoardSpec& spec) {
  cli.out << "energyd-sim: " << spec.id << " L4T " << spec.l4t << " is live at " << request.mount
          << "\nenergyd-sim: control socket " << request.control << "\nenergyd-sim: ready" << std::endl;
}

// Everything that lives while the board is mounted; destroyed in reverse order.
int serve(const CliContext& cli, const RunRequest& request, LiveBoard& board, LiveFs& fs) {
  Result<MountPoint> mount_point = MountPoint::prepare(request.mount);
  if (!mount_point) return cli.failure("run", mount_point.error());
  Status usable = check_fuse_available(request.mount);
  if (!usable) return cli.failure("run", usable.error());
  Result<std::unique_ptr<FuseSession>> session = FuseSession::mount(fs, request.mount);
  if (!session) return cli.failure("run", session.error());
  Result<std::unique_ptr<ControlServer>> server =
      ControlServer::start(request.control, [&](const nlohmann::json& r) { return handle_control(board, fs, r); });
  if (!server) return cli.failure("run", server.error());
  std::unique_ptr<HostLoadSampler> sampler;
  if (!request.live.cpu_load_permille) {
    Result<std::unique_ptr<HostLoadSampler>> started = HostLoadSampler::start(
        "/proc/stat", kHostLoadPeriod, [&board](std::uint32_t permille) { board.feed_host_cpu_load(permille); });
    if (!started) return cli.failure("run", started.error());
    sampler = std::move(started).value();
  }
  print_ready(cli, request, board.spec());
  Status ran = (*session)->run();
  if (!ran) return cli.failure("run", ran.error());
  cli.out << "energyd-sim: stopping, unmounting " << request.mount << std::endl;
  return kExitOk;
}

}  // namespace

int run_live_board(const CliContext& cli, const std::vector<std::string>& args) {
  if (wants_help(args)) {
    cli.out << kRunHelp;
    return kExitOk;
  }
  Result<RunRequest> request = parse_run(args);
  if (!request) return cli.usage_error("run", request.error());
  BoardLookup found = find_board(cli, "run", request->data_file, request->board, request->l4t);
  if (!found.spec) return found.exit_code;
  Result<std::unique_ptr<LiveBoard>> board = LiveBoard::create(*found.spec, request->live, boottime_ns);
  if (!board) return cli.usage_error("run", board.error());
  Result<std::unique_ptr<LiveFs>> fs = LiveFs::create(**board, request->tree_options);
  if (!fs) return cli.failure("run", fs.error());
  return serve(cli, *request, **board, **fs);
}

}  // namespace energy::sim
