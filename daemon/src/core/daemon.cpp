#include "daemon.h"

#include <signal.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <set>
#include <thread>

#include <malloc.h>
#include <spdlog/spdlog.h>

#include "access.h"
#include "averaging_settings.h"
#include "connection_runs.h"
#include "context_poller.h"
#include "context_status.h"
#include "discovery_watch.h"
#include "energy/baseline.h"
#include "energy/board.h"
#include "energy/rails.h"
#include "energy/report.h"
#include "energy/store.h"
#include "energy/sweep_ring.h"
#include "energy/sysroot.h"
#include "energy_counters.h"
#include "event_loop.h"
#include "export_rows.h"
#include "info_verbs.h"
#include "log_limit.h"
#include "period_check.h"
#include "pin_manager.h"
#include "run_args.h"
#include "run_manager.h"
#include "run_queries.h"
#include "sampler.h"
#include "server.h"
#include "sweep_verbs.h"
#include "task_runner.h"
#include "verb_args.h"
#include "writer.h"

namespace energy::daemon {

// The kernel's process accounting: the host's, also when the board's files
// come from a simulated root (the processes that run are the host's).
constexpr const char* kProcDir = "/proc";

namespace {

// energyd.kind of a baseline cut short (mark.stop's baseline_interrupted): never used as a baseline.
constexpr const char* kBaselineInterruptedKind = "baseline-interrupted";
// A read blocked longer than max(period / 2, this) is quarantined. Continuous-
// mode INA3221 hwmon reads do not wait for a conversion (period_check.h); the
// floor leaves short periods room for a slow I2C bus.
constexpr int64_t kMinStallLimitMs = 20;
// Restoring the lease journal at start waits this long before serving (H3: 2 s after ready).
constexpr auto kLeaseRecoveryWait = std::chrono::milliseconds(1500);
// At stop, every pinned clock is restored before the process exits, waiting at most this long.
constexpr auto kLeaseRestoreWait = std::chrono::milliseconds(5000);
// A discovery read that has not returned after this long is logged by name.
constexpr auto kDiscoveryReadLimit = std::chrono::milliseconds(2000);
// sd-event coalesces timers within their accuracy (default 250 ms): too coarse for a watchdog.
constexpr uint64_t kWatchdogAccuracyUs = 1000;

// Blocks this large or larger are mapped on their own and unmapped when
// freed. glibc's default threshold rises to the largest block freed (up to
// 32 MiB), after which export pages (~2.5 MB each) were carved from the
// worker and loop threads' heaps and their memory kept: under 60 pages
// fetched 6 at a time energyd's RSS stayed at 21 MiB (idle 10) with the
// default and went back to 11 MiB with this. Set once, before any thread.
constexpr int kMmapThresholdBytes = 256 * 1024;

void return_large_blocks_to_the_system() {
  if (::mallopt(M_MMAP_THRESHOLD, kMmapThresholdBytes) == 0) {
    spdlog::warn("cannot set malloc's mmap threshold; freed export pages may stay in energyd's heap, running on");
  }
}

Status block_stop_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  if (sigprocmask(SIG_BLOCK, &set, nullptr) != 0) return errno_error("cannot block SIGTERM/SIGINT");
  return ok_status();
}

void log_inventory(const SensorInventory& inv) {
  for (const auto& r : inv.rails) {
    spdlog::info("rail {}: {} device {} channel {}", r.label, driver_name(r.driver), r.device, r.channel);
  }
  for (const auto& s : inv.skipped) {
    spdlog::info("skipping {} channel {}{}: {}", s.device, s.channel, s.label.empty() ? "" : " (" + s.label + ")",
                 s.reason);
  }
  for (const auto& n : inv.notes) spdlog::warn("{}", n);
}

// A named group that does not exist leaves its privilege to root (and the
// other group) rather than stopping the daemon: a fresh build run by hand has
// no energyd groups. A malformed value is an error.
Result<std::optional<gid_t>> configured_group(const std::string& key, const std::string& spec) {
  auto gid = resolve_group(key, spec);
  if (gid || gid.error().code != ErrorCode::kNotFound) return gid;
  spdlog::warn("{}; only root{} will have this privilege", gid.error().message,
               key == "read_group" ? " and the clock group" : "");
  return std::optional<gid_t>();
}

// Every connection a uid may hold needs a descriptor: the soft open-file
// limit is raised (up to the hard limit) to fit max_connections_per_user.
// Connections past what fits wait in the backlog (Server backs off on EMFILE).
void fit_descriptors(const DaemonConfig& c) {
  auto plan = fit_descriptor_limit(static_cast<size_t>(c.max_connections_per_user));
  if (!plan) return spdlog::warn("{}; clients may be refused for want of descriptors", plan.error().describe());
  if (plan->short_of_descriptors) return spdlog::warn("{}", plan->notice);
  if (!plan->notice.empty()) spdlog::info("{}", plan->notice);
}

Result<ServerOptions> server_options(const DaemonConfig& c) {
  ServerOptions o;
  auto read = configured_group("read_group", c.read_group);
  if (!read) return read.take_error();
  auto clock = configured_group("clock_group", c.clock_group);
  if (!clock) return clock.take_error();
  o.policy = AccessPolicy{*read, *clock, ::getuid(), c.read_group, c.clock_group};
  o.max_connections_per_user = static_cast<size_t>(c.max_connections_per_user);
  o.client_deadline = std::chrono::milliseconds(c.client_deadline_ms);
  o.output_limit_bytes = static_cast<size_t>(c.client_output_limit_bytes);
  return o;
}

}  // namespace

// A sampler whose thread is still inside a blocked read when energyd stops:
// kept alive to the end of the process (the thread touches it when the read
// returns) and reachable from here, so that it is not memory lost by mistake
// (LeakSanitizer scans globals; external linkage, so the store is kept).
extern Sampler* g_sampler_left_behind;
Sampler* g_sampler_left_behind = nullptr;

class DaemonImpl {
 public:
  explicit DaemonImpl(DaemonConfig c) : config_(std::move(c)), root_(config_.root) {}
  int run();

 private:
  Status setup();
  void discover();
  void set_sensor_averaging();
  Status open_storage();
  Result<std::unique_ptr<Store>> open_writer_store();
  Result<StoreSession> open_session();
  Result<Store*> reader();
  Result<std::vector<RunRecord>> close_other_boots_runs(Store& store, int64_t boot);
  Status start_loop();
  void wait_for_first_sweep();
  Status check_sweep_time();
  void handle(const protocol::Request& req, const Responder& r);
  void dispatch(const VerbCall& call, const Responder& r);
  void status(const Responder& r);
  void mark_start(const MarkStartArgs& args, const Responder& r);
  void pin_then_start(const MarkStartArgs& args, nlohmann::json tags, const Responder& r);
  void drop_pinned_start(const MarkStartArgs& args, int64_t lease, const Responder& r);
  void open_pinned_run(const MarkStartArgs& args, const nlohmann::json& tags, int64_t lease, const Responder& r);
  void bind_lease(const MarkStartArgs& args, const RunRecord& run, int64_t lease, const Responder& r);
  void mark_stop(const MarkStopArgs& args, const Responder& r);
  void reply_started(int64_t run_id, nlohmann::json extra, const Responder& r);
  void started(const MarkStartArgs& args, std::optional<int64_t> run, const Responder& r);
  void stop_for_closed_connection(int64_t run_id);
  void connection_closed(uint64_t connection);
  void clocks(const Responder& r);
  void clocks_pin(PinArgs args, const Responder& r);
  void clocks_unpin(const UnpinArgs& args, const Responder& r);
  Caller caller(const Responder& r) const { return make_caller(r.caller().uid, policy_.daemon_uid); }
  Status start_pins();
  Status start_context();
  void export_readings(const ExportArgs& args, const Responder& r);
  nlohmann::json run_clocks(int64_t run_id, int64_t start_ns, int64_t end_ns) const;
  Result<nlohmann::json> start_tags(const MarkStartArgs& args, const Responder& r);
  Status check_baseline(int64_t baseline_id);
  void shutdown();
  static int on_signal(sd_event_source* s, const signalfd_siginfo* si, void* self);
  Status arm_watchdog();
  static int on_watchdog(sd_event_source* s, uint64_t usec, void* self);
  void start_counters();
  void open_ring();
  void close_ring();
  std::optional<StoredCounters> stored_counters(Store& store);

  DaemonConfig config_;
  AccessPolicy policy_;  // the server's, for the checks inside verbs (baseline runs)
  SystemClock clock_;
  SysRoot root_;
  StatusSources status_;
  EventPtr loop_;
  Poster poster_;
  std::unique_ptr<Store> reader_;
  std::unique_ptr<StorageWriter> writer_;
  std::shared_ptr<SweepRing> ring_;           // the sweep ring (sweep_ring.h), when the runtime directory is tmpfs
  std::unique_ptr<EnergyCounters> counters_;  // counted and stored by the writer
  std::unique_ptr<SweepRelay> sweep_relay_;   // sweeps to the writer, then a nudge to the context poller
  std::unique_ptr<Sampler> sampler_;
  std::unique_ptr<RunManager> runs_;
  std::unique_ptr<CpuLedger> cpu_ledger_;  // CPU accounting of runs that name their processes
  std::unique_ptr<Server> server_;
  std::unique_ptr<PinManager> pins_;
  ConnectionRuns connection_runs_;              // runs that end with their connection (loop thread)
  std::unique_ptr<TaskRunner> blocking_reads_;  // interactive: `clocks`
  std::unique_ptr<TaskRunner> bulk_reads_;      // exports (raw and of a run), never ahead of `clocks`
  std::unique_ptr<RunQueries> queries_;
  std::unique_ptr<SweepWrites> sweep_writes_;
  std::unique_ptr<ContextPoller> context_;
  std::unique_ptr<AveragingSettings> averaging_;
  SourcePtr sigterm_;
  SourcePtr sigint_;
  SourcePtr watchdog_;
  uint64_t watchdog_usec_ = 0;
  int64_t watchdog_ticks_ = -1;  // sampler ticks at the last ping
  LogLimiter log_limit_{clock_, std::chrono::minutes(1)};
};

Daemon::Daemon(DaemonConfig config) : impl_(std::make_unique<DaemonImpl>(std::move(config))) {}
Daemon::~Daemon() = default;
int Daemon::run() { return impl_->run(); }

int DaemonImpl::run() {
  Status st = setup();
  if (!st) {
    spdlog::critical("cannot start: {}", st.error().describe());
    sd_notifyf(0, "STATUS=cannot start: %s", st.error().describe().c_str());
    shutdown();
    return 1;
  }
  sd_notifyf(0, "READY=1\nSTATUS=sampling %zu rails every %lld ms", status_.inventory.rails.size(),
             static_cast<long long>(config_.sample_period_ms));
  spdlog::info("ready: {} rails, period {} ms, socket {}", status_.inventory.rails.size(), config_.sample_period_ms,
               config_.socket_path);
  int r = sd_event_loop(loop_.get());
  sd_notify(0, "STOPPING=1");
  spdlog::info("stopping");
  shutdown();
  return r < 0 ? 1 : 0;
}

Status DaemonImpl::setup() {
  // Before the threads, which get their own heaps.
  return_large_blocks_to_the_system();
  auto st = claim_socket_path(config_.socket_path);  // a second instance stops here, before any state is touched
  if (!st) return st;
  fit_descriptors(config_);
  // Discovery only reads, so SIGTERM may end energyd while a read is stuck in
  // a driver (discovery_watch.h); it is blocked, for the event loop, after.
  discover();
  st = block_stop_signals();
  if (!st) return st;
  st = open_storage();
  if (!st) return st;
  set_sensor_averaging();  // the sampler and the store take the rails as measured
  auto period = std::chrono::milliseconds(config_.sample_period_ms);
  auto stall_limit = std::max(period / 2, std::chrono::milliseconds(kMinStallLimitMs));
  start_counters();
  sweep_relay_ = std::make_unique<SweepRelay>(*writer_);
  sampler_ = std::make_unique<Sampler>(root_, status_.inventory.rails, period, stall_limit, clock_, *sweep_relay_);
  st = start_loop();  // the loop, Poster and RunManager exist before the threads that post to them
  if (!st) return st;
  auto open_runs = writer_->open_now();  // runs left open are known before the first request
  if (open_runs) runs_->adopt(std::move(*open_runs));
  st = start_pins();  // pinned clocks of a crashed daemon are restored before clients connect
  if (!st) return st;
  writer_->start();
  st = start_context();
  if (!st) return st;
  st = sampler_->start();
  if (!st) return st;
  wait_for_first_sweep();
  st = check_sweep_time();
  if (!st) return st;
  return server_->listen();  // clients connect once there are readings to show
}

// Bounded by the stall limit: a blocked rail is quarantined by then.
void DaemonImpl::wait_for_first_sweep() {
  if (status_.inventory.rails.empty()) return;  // nothing to read: "no sensors" is the state to show
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (sampler_->latest().values.empty() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

// A sweep that is slow at first (cold files) gets a few more sweeps to show
// its usual time before the period is refused.
Status DaemonImpl::check_sweep_time() {
  constexpr int64_t kSweepsToJudge = 5;
  size_t rails = status_.inventory.rails.size();
  if (rails == 0) return ok_status();
  auto fits = [&](const SamplerStats& st) {
    return static_cast<bool>(check_period_against_sweep(config_.sample_period_ms, st.read_p50_ns, st.sweeps, rails));
  };
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  SamplerStats st = sampler_->stats();
  while (!fits(st) && st.sweeps < kSweepsToJudge && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    st = sampler_->stats();
  }
  return check_period_against_sweep(config_.sample_period_ms, st.read_p50_ns, st.sweeps, rails);
}

void DaemonImpl::discover() {
  auto reads = std::make_shared<ReadWatch>();
  DiscoveryWatch watch(reads, kDiscoveryReadLimit);
  const SysRoot root = root_.watched_by(reads);
  status_.board = identify_board(root);
  status_.inventory = discover_rails(root);
  apply_device_tree_averaging(status_.board, status_.inventory);
  status_.period = advise_period(status_.inventory, config_.sensor_averaging);
  if (!config_.sample_period_given) config_.sample_period_ms = status_.period.recommended_ms;
  status_.config = config_;
  status_.clocks = discover_clocks(root);
  status_.started_boot_ns = clock_.boot_ns();
}

// Runs after open_storage created the state directory, which holds the journal.
void DaemonImpl::set_sensor_averaging() {
  averaging_ = std::make_unique<AveragingSettings>(root_, config_.state_dir + "/sensor-averaging.json", clock_);
  averaging_->apply(config_.sensor_averaging, config_.sample_period_ms, status_.inventory);
  status_.averaging = averaging_->chips();
  log_inventory(status_.inventory);
  auto notice = update_interval_notice(config_.sample_period_ms, status_.inventory.max_update_interval_ms,
                                       config_.sensor_averaging);
  if (!notice.empty()) spdlog::info("{}", notice);
  auto warning = period_warning(config_.sample_period_ms, status_.period);
  if (!warning.empty()) spdlog::warn("{}", warning);
  spdlog::info("sampling every {} ms ({}; {})", config_.sample_period_ms,
               config_.sample_period_given ? "configured" : "derived", status_.period.reason);
}

Status DaemonImpl::open_storage() {
  std::error_code ec;
  std::filesystem::create_directories(config_.state_dir, ec);
  if (ec) spdlog::error("cannot create state directory {}: {}; will keep trying", config_.state_dir, ec.message());
  WriterOptions options;
  options.flush_interval = std::chrono::milliseconds(config_.flush_interval_ms);
  options.checkpoint_interval = std::chrono::milliseconds(config_.checkpoint_interval_ms);
  options.seal_chunks = static_cast<size_t>(config_.seal_chunks);
  options.retention = retention_policy(config_);
  options.retention.max_units_per_step = retention_units_per_step(status_.inventory.rails.size());
  writer_ = std::make_unique<StorageWriter>(
      [this] { return open_session(); },
      [this](std::vector<RunRecord> runs) {
        poster_.post([this, runs = std::move(runs)]() mutable { runs_->adopt(std::move(runs)); });
      },
      options);
  open_ring();
  return ok_status();
}

// The sweep ring lives beside the socket, in energyd's runtime directory
// (/run/energyd, tmpfs; the unit keeps it across restarts), as
// `sweep-ring`. What a killed energyd left there is taken first and put
// into the new ring at once, so a second kill before the writer stores it
// loses none of it either. Its size: the sweeps that wake the writer (a
// checkpoint interval's, at most 2048, fewer for many rails:
// StorageWriter::ring_wake_sweeps) and half as many again, for those taken
// while the writer appends and syncs them (a second at 1 ms), plus 64.
// Should a sync take longer, the oldest are overwritten before the tail
// has them: only a kill -9 just then would lose them, and readers take
// none of the ring's until the tail catches up.
void DaemonImpl::open_ring() {
  size_t rails = status_.inventory.rails.size();
  auto slash = config_.socket_path.find_last_of('/');
  std::string dir = slash == 0 ? "/" : config_.socket_path.substr(0, slash);
  auto why_not = [&](const std::string& why) {
    spdlog::info("sweep ring off ({}); the sweep tail is written every flush interval", why);
    writer_->note_no_ring(why);
  };
  if (rails == 0) return why_not("no rails");
  auto memory = SweepRing::memory_backed(dir);
  if (!memory) return why_not(memory.error().describe());
  std::string signature;
  for (const auto& r : status_.inventory.rails)
    signature += r.label + '\n' + r.voltage_file + '\n' + r.current_file + '\n' + r.power_file + '\n';
  std::string path = dir + "/sweep-ring";
  RingLeftover left = SweepRing::take_leftover(path, rails, signature);
  if (!left.dropped_why.empty()) {
    std::string lost =
        left.dropped > 0 ? std::to_string(left.dropped) + " sweeps in it are lost" : "whatever sweeps it held are lost";
    writer_->note_loss({"ring_dropped", left.dropped_why + "; " + lost, {}});
  }
  size_t wake = StorageWriter::ring_wake_sweeps(config_.sample_period_ms, config_.checkpoint_interval_ms, rails);
  auto ring = SweepRing::create(path, rails, wake + wake / 2 + 64, signature);
  if (!ring) return why_not(ring.error().describe());
  ring_ = std::move(ring).value();
  size_t keep = std::min(left.sweeps.size(), ring_->capacity());
  for (size_t i = left.sweeps.size() - keep; i < left.sweeps.size(); ++i) ring_->put(left.sweeps[i]);
  writer_->use_ring(ring_, std::move(left.sweeps), wake);
  std::shared_ptr<SweepRing> ring_ref = ring_;
  register_live_sweeps(database_path(config_), [ring_ref](int64_t after_ns) { return ring_ref->since(after_ns); });
  spdlog::info("sweep ring {}: {} sweeps, {} KiB{}", path, ring_->capacity(), ring_->bytes() / 1024,
               ring_->locked() ? ", locked in memory" : "");
}

// After the writer's last flush: every sweep of the ring is stored.
void DaemonImpl::close_ring() {
  if (!ring_) return;
  unregister_live_sweeps(database_path(config_));
  if (writer_ && writer_->stats().open && ::unlink(ring_->path().c_str()) != 0 && errno != ENOENT)
    spdlog::warn("cannot remove the sweep ring {}: {}", ring_->path(), std::strerror(errno));
}

// Runs on the writer thread. A damaged database is moved aside (never
// deleted) and a fresh one created, so energyd serves again within seconds.
Result<std::unique_ptr<Store>> DaemonImpl::open_writer_store() {
  std::string path = database_path(config_);
  std::error_code ec;
  std::filesystem::create_directories(config_.state_dir, ec);
  auto store = Store::open(path, StoreRole::kWriter, Store::kBusyTimeoutMs);
  if (store || store.error().code != ErrorCode::kCorrupt) return store;
  auto moved = Store::move_aside(path, std::to_string(clock_.wall_ns() / kNsPerSec));
  if (!moved) return moved.take_error();
  spdlog::error("database {} is damaged ({}); moved it to {} and starting a fresh one", path, store.error().describe(),
                *moved);
  return Store::open(path, StoreRole::kWriter, Store::kBusyTimeoutMs);
}

Result<StoreSession> DaemonImpl::open_session() {
  auto store = open_writer_store();
  if (!store) return store.take_error();
  StoreSession s;
  auto boot = (*store)->ensure_boot(current_boot_id(), clock_.wall_ns());
  if (!boot) return boot.take_error();
  auto ids = (*store)->ensure_rails(status_.inventory.rails, FilterSince{*boot, clock_.boot_ns()});
  if (!ids) return ids.take_error();
  auto open = close_other_boots_runs(**store, *boot);
  if (!open) return open.take_error();
  auto resume = (*store)->readings().resume_cursors(*boot, *ids);
  if (!resume) return resume.take_error();
  for (const auto& r : status_.inventory.rails) s.rails.push_back(ChunkRail{power_unit_uw(r.driver)});
  s.store = std::move(store).value();
  s.boot = *boot;
  s.rail_ids = std::move(ids).value();
  s.resume = std::move(resume).value();
  s.open_runs = std::move(open).value();
  s.counters = stored_counters(*s.store);
  return s;
}

Result<Store*> DaemonImpl::reader() {
  if (reader_) return reader_.get();
  auto r = Store::open(database_path(config_), StoreRole::kReader, Store::kBusyTimeoutMs);
  if (!r) return make_error(r.error().code, "storage unavailable: " + r.error().describe());
  reader_ = std::move(r).value();
  return reader_.get();
}

// A run still open from an earlier boot can never be stopped: close it as
// interrupted at its boot's last reading. Runs of this boot continue; they
// are returned.
Result<std::vector<RunRecord>> DaemonImpl::close_other_boots_runs(Store& store, int64_t boot) {
  auto open = store.runs().in_state(RunState::kOpen);
  if (!open) return open.take_error();
  std::vector<RunRecord> kept;
  for (const auto& r : *open) {
    if (r.boot == boot) {
      kept.push_back(r);
      spdlog::info("run {} ({}) is still open from before the restart; the downtime is a gap in its data", r.id,
                   r.name);
      continue;
    }
    auto last = store.readings().last_sample_ns(r.boot);
    int64_t stop = last && last->has_value() ? std::max(**last, r.start_ns) : r.start_ns;
    auto st = store.runs().finish(r.id, stop, r.start_wall_ns + (stop - r.start_ns), RunState::kInterrupted);
    if (!st) return st.take_error();
    spdlog::warn("run {} ({}) was open when the board rebooted; closed as interrupted", r.id, r.name);
  }
  return kept;
}

Status DaemonImpl::start_loop() {
  sd_event* e = nullptr;
  if (int r = sd_event_new(&e); r < 0) return make_error(ErrorCode::kIo, "cannot create event loop", -r);
  loop_.reset(e);
  auto st = poster_.attach(loop_.get());
  if (!st) return st;
  sd_event_source* s = nullptr;
  sd_event_add_signal(loop_.get(), &s, SIGTERM, &DaemonImpl::on_signal, this);
  sigterm_.reset(s);
  sd_event_add_signal(loop_.get(), &s, SIGINT, &DaemonImpl::on_signal, this);
  sigint_.reset(s);
  const int64_t period_ns = config_.sample_period_ms * kNsPerMs;
  blocking_reads_ = std::make_unique<TaskRunner>("clocks");
  bulk_reads_ = std::make_unique<TaskRunner>("export");
  runs_ = std::make_unique<RunManager>(
      *sampler_, *writer_, poster_, [this] { return reader(); }, period_ns);
  runs_->set_open_run_limit(static_cast<size_t>(config_.max_open_runs_per_user));
  cpu_ledger_ = std::make_unique<CpuLedger>(kProcDir, clock_);
  runs_->set_cpu_ledger(cpu_ledger_.get());
  auto clocks = [this](int64_t run, int64_t from, int64_t to) { return run_clocks(run, from, to); };
  runs_->set_clocks_source(clocks);
  runs_->set_stopped_hook([this](int64_t run_id) { pins_->run_stopped(run_id); });  // run leases end with their run
  queries_ = std::make_unique<RunQueries>(database_path(config_), poster_, *bulk_reads_, period_ns, clocks);
  sweep_writes_ = std::make_unique<SweepWrites>(*writer_, poster_, clock_);
  auto options = server_options(config_);
  if (!options) return options.take_error();
  policy_ = options->policy;
  server_ = std::make_unique<Server>(
      loop_.get(), config_.socket_path, [this](const protocol::Request& q, const Responder& r) { handle(q, r); },
      std::move(options).value());
  pins_ = std::make_unique<PinManager>(loop_.get(), poster_, root_, status_.clocks, clock_,
                                       config_.state_dir + "/clock-leases.json");
  server_->set_close_hook([this](uint64_t conn) { connection_closed(conn); });
  return arm_watchdog();
}

// The joule counters of `energy.counters` (energy_counters.h): counted by
// the writer as it queues each sweep and stored with every commit; the
// writer's first open continues the stored ones (stored_counters).
void DaemonImpl::start_counters() {
  std::vector<CounterRail> rails;
  for (const auto& r : status_.inventory.rails) rails.push_back(CounterRail{r.label, power_unit_uw(r.driver)});
  counters_ = std::make_unique<EnergyCounters>(std::move(rails), clock_.wall_ns());
  writer_->count_with(*counters_);
}

// Runs in open_session. The counters the database holds; without any, those
// of the counters file of energyd before schema 6, moved into the database
// once (committed, synced) and the file removed. A damaged record or file
// is logged and the counters start again from zero under a new id (a
// database moved aside as damaged has none either).
std::optional<StoredCounters> DaemonImpl::stored_counters(Store& store) {
  std::string path = config_.state_dir + "/energy-counters.json";
  auto in_db = store.counters().get();
  if (!in_db) spdlog::warn("{}; the energy counters start again from zero", in_db.error().describe());
  std::optional<StoredCounters> found;
  if (in_db) found = std::move(in_db).value();
  if (::access(path.c_str(), F_OK) != 0) return found;
  if (!found) {
    auto file = read_counters_file(path);
    if (!file) {
      spdlog::warn("{}; the energy counters start again from zero", file.error().describe());
    } else if (*file) {
      Status st = store.set_durability(Store::Durability::kSynced);
      if (st) st = store.begin();
      if (st) st = store.counters().put(**file);
      if (st) st = store.commit();
      if (!st) {
        (void)store.rollback();
        spdlog::warn(
            "cannot move the energy counters of {} into the database ({}); keeping the file for the next start", path,
            st.error().describe());
        return *file;
      }
      spdlog::info("energy counters {} moved from {} into the database", (*file)->counters_id, path);
      found = std::move(*file);
    }
  }
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
    spdlog::warn("cannot remove the old energy counters file {}: {}", path, std::strerror(errno));
  }
  return found;
}

// The systemd watchdog is pinged only while the sampler makes progress: a
// wedged sampler (not a loop that merely still answers) gets energyd restarted.
Status DaemonImpl::arm_watchdog() {
  if (sd_watchdog_enabled(0, &watchdog_usec_) <= 0) return ok_status();
  uint64_t now = 0;
  sd_event_now(loop_.get(), CLOCK_MONOTONIC, &now);
  sd_event_source* s = nullptr;
  int r = sd_event_add_time(loop_.get(), &s, CLOCK_MONOTONIC, now + watchdog_usec_ / 2, kWatchdogAccuracyUs,
                            &DaemonImpl::on_watchdog, this);
  if (r < 0) return make_error(ErrorCode::kIo, "cannot arm the watchdog timer", -r);
  watchdog_.reset(s);
  return ok_status();
}

int DaemonImpl::on_watchdog(sd_event_source* s, uint64_t usec, void* self) {
  auto* d = static_cast<DaemonImpl*>(self);
  auto stats = d->sampler_->stats();
  int64_t progress = stats.ticks + stats.extra_samples;
  if (progress != d->watchdog_ticks_)
    sd_notify(0, "WATCHDOG=1");
  else if (auto v = d->log_limit_.allow("watchdog"); v.log) {
    spdlog::error("sampler made no progress for {} ms; not pinging the watchdog{}", d->watchdog_usec_ / 2000,
                  LogLimiter::suffix(v));
  }
  d->watchdog_ticks_ = progress;
  sd_event_source_set_time(s, usec + d->watchdog_usec_ / 2);
  sd_event_source_set_enabled(s, SD_EVENT_ON);
  return 0;
}

int DaemonImpl::on_signal(sd_event_source* s, const signalfd_siginfo*, void*) {
  sd_event_exit(sd_event_source_get_event(s), 0);
  return 0;
}

void DaemonImpl::handle(const protocol::Request& req, const Responder& r) {
  auto call = read_verb_args(req);
  if (!call) return r.fail(call.error());
  dispatch(*call, r);
}

void DaemonImpl::dispatch(const VerbCall& call, const Responder& r) {
  const VerbArgs& a = call.args;
  switch (call.verb) {
    case Verb::kStatus: return status(r);
    case Verb::kRails: return r.reply(rails_verb_json(status_, *sampler_));
    case Verb::kClocks: return clocks(r);
    case Verb::kClocksLeases: return r.reply(pins_->leases_json());
    case Verb::kExport: return export_readings(std::get<ExportArgs>(a), r);
    case Verb::kExportRun: return queries_->export_run(std::get<RunExportArgs>(a), r);
    case Verb::kRunsList: return queries_->list(std::get<RunFilter>(a), r);
    case Verb::kRunsShow: return queries_->show(std::get<RunRef>(a), r);
    case Verb::kMarkStart: return mark_start(std::get<MarkStartArgs>(a), r);
    case Verb::kMarkStop: return mark_stop(std::get<MarkStopArgs>(a), r);
    case Verb::kClocksPin: return clocks_pin(std::get<PinArgs>(a), r);
    case Verb::kClocksUnpin: return clocks_unpin(std::get<UnpinArgs>(a), r);
    case Verb::kEnergyCounters: return r.reply(counters_verb_json(writer_->counters_now()));
    case Verb::kSweepCreate: return sweep_writes_->create(std::get<SweepCreateArgs>(a), r);
    case Verb::kSweepList: return queries_->sweeps(std::get<SweepFilter>(a), r);
    case Verb::kSweepShow: return queries_->sweep(std::get<SweepRef>(a), r);
    case Verb::kSweepAddRun: return sweep_writes_->add_run(std::get<SweepRunRecord>(a), r);
    case Verb::kSweepSetState: return sweep_writes_->set_state(std::get<SweepStateArgs>(a), r);
  }
  r.fail(make_error(ErrorCode::kInternal, "verb without a handler"));
}

void DaemonImpl::status(const Responder& r) {
  auto j = status_json(status_, *sampler_, *writer_, runs_->open_runs(), clock_);
  j["context"] =
      context_status_json(config_.clock_poll_ms, config_.thermal_poll_ms, context_->stats(), writer_->stats());
  j["connections"] = server_stats_json(server_->stats(), server_->connection_count());
  r.reply(j);
}

void DaemonImpl::mark_start(const MarkStartArgs& args, const Responder& r) {
  auto tags = start_tags(args, r);
  if (!tags) return r.fail(tags.error());
  if (args.end_with_connection) connection_runs_.starting(r.connection());
  if (args.pin) return pin_then_start(args, std::move(tags).value(), r);
  runs_->start(args.name, *tags, args.items, [this, args, r](Result<RunRecord> rec) {
    started(args, rec ? std::optional<int64_t>(rec->id) : std::nullopt, r);
    if (!rec) return r.fail(rec.error());
    reply_started(rec->id, nlohmann::json::object(), r);
  });
}

// The run's start moves to a sample taken now (RunManager::start_at_reply):
// the client starts its work right after this reply, and the commit before
// it (tens of ms) is no longer inside the run. `extra` joins the reply.
void DaemonImpl::reply_started(int64_t run_id, nlohmann::json extra, const Responder& r) {
  runs_->start_at_reply(run_id, [r, extra = std::move(extra)](const Result<RunRecord>& rec) {
    if (!rec) return r.fail(rec.error());
    nlohmann::json reply = run_to_json(*rec);
    reply.update(extra);
    r.reply(reply);
  });
}

// mark.start's "end_with_connection" (connection_runs.h): the run is
// recorded with its connection, or stopped at once when the connection
// closed while it was being opened.
void DaemonImpl::started(const MarkStartArgs& args, std::optional<int64_t> run, const Responder& r) {
  if (args.end_with_connection && connection_runs_.started(r.connection(), run)) stop_for_closed_connection(*run);
}

void DaemonImpl::stop_for_closed_connection(int64_t id) {
  StopRequest stop{
      std::to_string(id), {{kRunInterruptedTag, kConnectionClosed}}, make_caller(0, 0), std::nullopt, std::nullopt};
  stop.caller.admin = true;
  runs_->stop(stop, [id](const Result<nlohmann::json>& rep) {
    if (rep) return spdlog::info("run {} stopped: the connection that started it closed", id);
    spdlog::warn("run {} was to end with its connection, but stopping it failed: {}", id, rep.error().describe());
  });
}

// A closed connection's clock leases end, and so do its runs that were to
// end with it; their run leases end with them.
void DaemonImpl::connection_closed(uint64_t connection) {
  pins_->connection_closed(connection);
  for (int64_t id : connection_runs_.take(connection)) stop_for_closed_connection(id);
}

namespace {

// energyd acting on its own behalf (undoing half of a mark.start).
Caller daemon_itself() {
  Caller c;
  c.admin = true;
  return c;
}

}  // namespace

// mark.start with `pin` (docs/CLOCKS.md, "Pinned runs"): the clocks are
// pinned and read back first, under a run lease not yet tied to a run (the
// journal restores it at the next start if energyd dies before the run
// opens); the run opens after that and after a context poll that reads
// the pinned clocks, so its first sample and its residency are at the
// pinned clocks. A refused pin fails mark.start and opens no run.
void DaemonImpl::pin_then_start(const MarkStartArgs& args, nlohmann::json tags, const Responder& r) {
  if (!policy_.permits(r.caller(), Privilege::kClock)) {
    return r.fail(make_error(ErrorCode::kDenied,
                             "permission denied: mark.start with \"pin\" changes the clocks, so "
                             "it needs the clock privilege (root or group " +
                                 policy_.clock_group + ")"));
  }
  PinOrder order = *args.pin;
  order.kind = LeaseKind::kRun;
  order.run_id = 0;
  order.connection = r.connection();
  order.owner_uid = r.caller().uid;
  pins_->pin(std::move(order), [this, args, tags = std::move(tags), r](Result<nlohmann::json> pinned) {
    if (!pinned) {
      started(args, std::nullopt, r);
      return r.fail(pinned.error());
    }
    int64_t lease = (*pinned)["lease"].value("id", int64_t{0});
    if (r.cancelled()) return drop_pinned_start(args, lease, r);
    context_->poll_now([this, args, tags, lease, r] {
      poster_.post([this, args, tags, lease, r] { open_pinned_run(args, tags, lease, r); });
    });
  });
}

// The client left before its pinned run opened: nobody would learn of the
// run or stop it, so it does not open and the pin is given back (the lease
// is also released when the connection's close reaches the pin worker).
void DaemonImpl::drop_pinned_start(const MarkStartArgs& args, int64_t lease, const Responder& r) {
  started(args, std::nullopt, r);
  pins_->unpin({lease}, daemon_itself(), [](const Result<nlohmann::json>&) {});
}

// A run that cannot open gives its lease back.
void DaemonImpl::open_pinned_run(const MarkStartArgs& args, const nlohmann::json& tags, int64_t lease,
                                 const Responder& r) {
  if (r.cancelled()) return drop_pinned_start(args, lease, r);
  runs_->start(args.name, tags, args.items, [this, args, r, lease](const Result<RunRecord>& rec) {
    if (rec) return bind_lease(args, *rec, lease, r);
    started(args, std::nullopt, r);
    pins_->unpin({lease}, daemon_itself(), [](const Result<nlohmann::json>&) {});
    r.fail(rec.error());
  });
}

// The lease was released meanwhile (an admin's unpin --all): the run is
// stopped again, so that no run claims clocks it did not have. The run is
// tied to its connection only once the lease is tied to it, so that a stop
// for a closed connection also ends the lease.
void DaemonImpl::bind_lease(const MarkStartArgs& args, const RunRecord& run, int64_t lease, const Responder& r) {
  pins_->bind_to_run(lease, run.id, [this, args, run, r](Result<nlohmann::json> bound) {
    started(args, bound ? std::optional<int64_t>(run.id) : std::nullopt, r);
    if (bound) return reply_started(run.id, {{"clock_pin", *bound}}, r);
    StopRequest stop{std::to_string(run.id), {{"energyd.pin", "lost"}}, daemon_itself(), std::nullopt, std::nullopt};
    runs_->stop(stop, [](const Result<nlohmann::json>&) {});
    r.fail(bound.error());
  });
}

// The report carries the clocks stored with the stop (run_clocks, on the writer).
void DaemonImpl::mark_stop(const MarkStopArgs& args, const Responder& r) {
  StopRequest stop{args.run, nlohmann::json(args.tags), caller(r), args.items, args.command};
  if (args.baseline_interrupted) stop.tags[kRunKindTag] = kBaselineInterruptedKind;
  runs_->stop(stop, [this, r](Result<nlohmann::json> rep) {
    if (!rep) return r.fail(rep.error());
    connection_runs_.forget(rep->value("run", nlohmann::json::object()).value("id", int64_t{0}));
    r.reply(*rep);
  });
}

// Any thread: the pin history and event log are thread-safe.
nlohmann::json DaemonImpl::run_clocks(int64_t run_id, int64_t start_ns, int64_t end_ns) const {
  nlohmann::json events = nlohmann::json::array();
  for (const auto& e : pins_->events_between(start_ns, end_ns)) events.push_back(clock_event_json(e));
  return {{"clock_pins", pins_->pins_for_run(run_id, start_ns, end_ns)}, {"clock_events", std::move(events)}};
}

// mark.start's tags plus energyd's reserved ones: the owner (energyd.uid),
// energyd.kind=baseline for a baseline run (it changes every later report,
// so it needs the clock privilege) and energyd.baseline for `baseline`.
Result<nlohmann::json> DaemonImpl::start_tags(const MarkStartArgs& args, const Responder& r) {
  nlohmann::json tags(args.tags);
  tags[kRunOwnerTag] = std::to_string(r.caller().uid);
  // What the run is measured with and judged by: its report never depends on later settings.
  tags[kRunPeriodTag] = std::to_string(config_.sample_period_ms);
  if (status_.period.window_ms > 0) tags[kRunAveragingWindowTag] = std::to_string(status_.period.window_ms);
  if (args.min_coverage) tags[kRunMinCoverageTag] = nlohmann::json(*args.min_coverage).dump();
  if (args.max_gap_periods) tags[kRunMaxGapTag] = nlohmann::json(*args.max_gap_periods).dump();
  if (args.max_failed_reads) tags[kRunMaxFailedReadsTag] = std::to_string(*args.max_failed_reads);
  if (args.exclusive) tags[kRunExclusiveTag] = "true";
  if (args.pid) {
    auto owner = caller(r).admin ? std::nullopt : std::optional<uid_t>(r.caller().uid);
    if (auto st = check_process_owner(kProcDir, *args.pid, owner); !st) return st.take_error();
    tags[kRunPidTag] = std::to_string(*args.pid);
  }
  if (args.baseline_run && !policy_.permits(r.caller(), Privilege::kClock)) {
    return make_error(ErrorCode::kDenied,
                      "permission denied: a baseline run (\"baseline_run\") changes every later "
                      "report, so it needs the clock privilege (root or group " +
                          policy_.clock_group + ")");
  }
  if (args.baseline_run) tags[kRunKindTag] = kBaselineKind;
  if (!args.baseline) return tags;
  if (auto st = check_baseline(*args.baseline); !st) return st.take_error();
  tags[kRunBaselineTag] = std::to_string(*args.baseline);
  return tags;
}

// `baseline` must name a stopped baseline run (checked on the loop's
// reader: one primary-key lookup).
Status DaemonImpl::check_baseline(int64_t baseline_id) {
  auto store = reader();
  if (!store) return store.take_error();
  auto rec = (*store)->runs().by_id(baseline_id);
  if (!rec) return rec.take_error();
  std::string id = std::to_string(baseline_id);
  if (!rec->has_value()) return make_error(ErrorCode::kNotFound, "argument \"baseline\": no run numbered " + id);
  if (!is_baseline_run(**rec) || (*rec)->state != RunState::kStopped) {
    return make_error(ErrorCode::kInvalid, "argument \"baseline\": run " + id + " (" + (*rec)->name +
                                               ") is not a stopped baseline run (tag energyd.kind=baseline)");
  }
  return ok_status();
}

Status DaemonImpl::start_pins() {
  std::set<int64_t> open;
  for (const auto& run : runs_->open_runs()) open.insert(run.id);
  return pins_->start(open, kLeaseRecoveryWait);
}

// Board context for run reports: polled on the sampler's wake-ups (on its
// thread where the board's files do not hang), pushed to the writer; a mark
// asks for a fresh poll, and there a stop is stored only after that poll's rows.
Status DaemonImpl::start_context() {
  ContextPollerOptions o;
  o.clock_period = std::chrono::milliseconds(config_.clock_poll_ms);
  o.thermal_period = std::chrono::milliseconds(config_.thermal_poll_ms);
  o.sweep_period = std::chrono::milliseconds(config_.sample_period_ms);
  o.inline_reads = inline_reads_safe(status_.board);
  context_ = std::make_unique<ContextPoller>(root_, status_.clocks, o, clock_, *writer_);
  runs_->set_start_hook([this] { context_->poll_now(); });
  // A stop is stored with its own poll's rows (counted clocks are otherwise
  // up to a second old in its report), except where a read can hang: there
  // the stop does not wait for a poll that may never come.
  if (o.inline_reads) {
    runs_->set_stop_hook([this](std::function<void()> then) { context_->poll_now(std::move(then)); });
  } else {
    runs_->set_stop_hook([this](const std::function<void()>& then) {
      context_->poll_now();
      then();
    });
  }
  // Governors are read about once a second; after a pin or restore at once.
  if (pins_) pins_->set_clocks_written_hook([poller = context_.get()] { poller->poll_now(); });
  sweep_relay_->set_poller(context_.get());  // polls ride on the sampler's wake-ups
  return context_->start();
}

// Clock-changing verbs all start with "clocks.pin" / "clocks.unpin" (the
// clock privilege). A lease belongs to its caller; a run lease to the run's
// owner, and only they (or root) may pin for the run.
void DaemonImpl::clocks_pin(PinArgs args, const Responder& r) {
  PinOrder order = std::move(args.order);
  order.connection = r.connection();
  order.owner_uid = r.caller().uid;
  if (order.kind == LeaseKind::kRun) {
    auto run = runs_->open_run(args.run_key);
    if (!run) return r.fail(run.error());
    std::string thing = "run " + std::to_string(run->id) + " (" + run->name + ")";
    if (auto st = check_owner(thing, "pin clocks for it", run_owner(*run), caller(r)); !st) return r.fail(st.error());
    order.run_id = run->id;
    order.owner_uid = run_owner(*run).value_or(order.owner_uid);
  }
  pins_->pin(std::move(order), [r](Result<nlohmann::json> res) {
    if (!res) return r.fail(res.error());
    r.reply(*res);
  });
}

void DaemonImpl::clocks_unpin(const UnpinArgs& args, const Responder& r) {
  pins_->unpin(args.leases, caller(r), [r](Result<nlohmann::json> res) {
    if (!res) return r.fail(res.error());
    r.reply(*res);
  });
}

// Clock files are read on the interactive worker (never behind an export): a
// hung devfreq read must not stall the loop.
void DaemonImpl::clocks(const Responder& r) {
  blocking_reads_->post([this, r] {
    if (r.cancelled()) return;
    std::vector<DomainState> states;
    for (const auto& d : status_.clocks.domains) states.push_back(read_domain(root_, d));
    auto thermal = read_thermal(root_, status_.clocks.thermal);
    auto reply = clocks_verb_json(status_.clocks, states, thermal);
    poster_.post([r, reply]() { r.reply(reply); });
  });
}

// Raw readings for `energyctl export`, a page at a time (a page ends on a
// sweep boundary; the reply says where the next one starts). Runs on the
// export worker with its own connection, so a long export never stalls the
// loop or delays `clocks`.
void DaemonImpl::export_readings(const ExportArgs& args, const Responder& r) {
  post_text_work(*bulk_reads_, poster_, r,
                 [this, r, from = args.since_wall_ns, to = args.until_wall_ns, rail = args.rail] {
                   return export_page(database_path(config_), from, to, rail, [r] { return r.cancelled(); });
                 });
}

void DaemonImpl::shutdown() {
  server_.reset();                            // no new requests; the socket file goes away
  if (pins_) pins_->stop(kLeaseRestoreWait);  // every pinned clock back before the process ends
  if (blocking_reads_) blocking_reads_->stop(std::chrono::milliseconds(1000));
  if (queries_) queries_->stop(std::chrono::milliseconds(1000));
  if (bulk_reads_) bulk_reads_->stop(std::chrono::milliseconds(1000));
  if (sweep_relay_) sweep_relay_->set_poller(nullptr);
  if (context_) context_->stop(std::chrono::milliseconds(1000));  // its last rows go out with the writer's
  if (sampler_) sampler_->stop();
  if (sampler_ && !sampler_->stopped_cleanly()) {
    spdlog::warn("a sensor read is still blocked; leaving its thread behind at exit");
    g_sampler_left_behind = sampler_.release();  // its thread touches the sampler when the read returns
  }
  if (averaging_) averaging_->restore();  // the chips' own averaging back once sampling has stopped
  if (writer_) writer_->stop();           // flushes every queued sample and mark
  close_ring();
  runs_.reset();
}

}  // namespace energy::daemon
