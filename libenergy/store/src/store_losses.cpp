// The Store's side of the guard (store_guard.h): what is found before
// SQLite opens the files, and the comparison of the database with the
// marks journal after migrating.
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <random>

#include "energy/store.h"
#include "sqlite.h"

namespace energy {
namespace {

std::string journal_path(const std::string& db) { return db + "-marks"; }

std::string base_name(const std::string& path) { return std::filesystem::path(path).filename().string(); }

// A copy kept as evidence next to the file; "" when it could not be made.
std::string keep_copy(const std::string& from, const std::string& to) {
  std::error_code ec;
  if (!std::filesystem::exists(from, ec)) return "";
  std::filesystem::copy_file(from, to, std::filesystem::copy_options::skip_existing, ec);
  return ec ? "" : to;
}

// The suffix of evidence copies: the WAL's last change (seconds), which is
// the same on every retry of an open and needs no clock.
std::string evidence_suffix(const std::string& wal) {
  struct stat st {};
  return std::to_string(::stat(wal.c_str(), &st) == 0 ? static_cast<int64_t>(st.st_mtime) : 0);
}

StorageLoss wal_loss(const std::string& db, const WalScan& scan) {
  std::string wal = db + "-wal";
  std::string where =
      scan.header_valid
          ? "is damaged at frame " + std::to_string(scan.first_bad_frame) + " of " + std::to_string(scan.frames) +
                ": SQLite keeps the first " + std::to_string(scan.frames_replayed) + " frames and drops " +
                std::to_string(scan.frames_dropped) + " written after the damage"
          : "has a damaged header: SQLite ignores all " + std::to_string(scan.frames_dropped) + " frames";
  StorageLoss loss{"wal_damaged", "", {}};
  std::string suffix = ".damaged-" + evidence_suffix(wal);
  for (const auto& copy : {keep_copy(wal, wal + suffix), keep_copy(db, db + suffix)}) {
    if (!copy.empty()) loss.evidence.push_back(copy);
  }
  loss.message = "the write-ahead log " + wal + " " + where + ", holding " + std::to_string(scan.commits_dropped) +
                 " committed transactions (readings, and any marks among them, stored before the last stop are "
                 "lost from the database); " +
                 (loss.evidence.empty() ? "no copy could be kept"
                                        : "copies kept as " + base_name(loss.evidence[0]) +
                                              (loss.evidence.size() > 1 ? " and " + base_name(loss.evidence[1]) : ""));
  return loss;
}

std::string new_store_id() {
  try {
    std::random_device rd;
    char buf[33];
    std::snprintf(buf, sizeof buf, "%08x%08x%08x%08x", rd(), rd(), rd(), rd());
    return buf;
  } catch (const std::exception&) {
    return "pid" + std::to_string(::getpid()) + "-" +
           std::to_string(std::chrono::steady_clock::now().time_since_epoch().count());
  }
}

std::string run_list(const std::vector<MarkEntry>& entries) {
  std::string out;
  int shown = 0;
  int64_t starts = 0;
  for (const auto& e : entries) {
    if (e.op != MarkEntry::Op::kStart) continue;
    ++starts;
    if (++shown <= 10) out += (out.empty() ? "" : ", ") + std::to_string(e.run_id) + " '" + e.name + "'";
  }
  if (starts > 10) out += " and " + std::to_string(starts - 10) + " more";
  return starts == 0 ? "no acknowledged runs" : std::to_string(starts) + " acknowledged runs (" + out + ")";
}

void read_journal(const std::string& db, std::optional<MarksJournalContents>& journal,
                  std::vector<StorageLoss>& losses) {
  std::string path = journal_path(db);
  auto j = MarksJournal::read(path);
  if (!j) {
    std::string aside = path + ".unreadable";
    std::rename(path.c_str(), aside.c_str());
    losses.push_back({"journal_damaged",
                      "the marks journal cannot be read (" + j.error().describe() +
                          "); acknowledged marks cannot be checked against the database; kept as " + base_name(aside),
                      {aside}});
    return;
  }
  journal = std::move(*j);
  if (!journal || journal->bad_lines.empty()) return;
  std::string lines;
  for (int n : journal->bad_lines) lines += (lines.empty() ? "" : ", ") + std::to_string(n);
  losses.push_back(
      {"journal_damaged",
       "the marks journal " + path + " has unreadable lines (" + lines + "); the marks they held cannot be checked",
       {}});
}

}  // namespace

Store::BeforeOpen Store::guard_before_open(const std::string& path) {
  BeforeOpen b;
  struct stat st {};
  b.database_empty = ::stat(path.c_str(), &st) != 0 || st.st_size == 0;
  auto wal = scan_wal_file(path + "-wal");
  if (!wal) {
    b.losses.push_back({"wal_damaged", "the write-ahead log cannot be checked: " + wal.error().describe(), {}});
  } else if (*wal && (*wal)->damaged()) {
    b.losses.push_back(wal_loss(path, **wal));
  }
  read_journal(path, b.journal, b.losses);
  return b;
}

// A journal of another database (or of one that is now missing or empty)
// is reported with the runs it acknowledged and kept aside.
Status Store::guard_after_open(BeforeOpen before) {
  losses_ = std::move(before.losses);
  auto id = db_->prepare("SELECT value FROM meta WHERE key = 'store_id'");
  if (!id) return id.take_error();
  auto row = id->step();
  if (!row) return row.take_error();
  std::string store_id = *row == sql::StepResult::kRow ? id->text_at(0) : "";
  id->reset();
  auto& journal = before.journal;
  if (journal && journal->store_id != store_id) {
    std::string aside = journal_path(path_) + ".lost-" + journal->store_id;
    std::rename(journal_path(path_).c_str(), aside.c_str());
    std::string what = before.database_empty ? "is missing or empty (0 bytes)"
                                             : "is another database than the one the marks journal belongs to";
    losses_.push_back({"database_replaced",
                       "the database " + path_ + " " + what + ": the store " + journal->store_id + " that held " +
                           run_list(journal->entries) + " is gone and a fresh one was started; journal kept as " +
                           base_name(aside),
                       {aside}});
    journal.reset();
  }
  if (store_id.empty()) {
    auto made = ensure_store_id();
    if (!made) return made.take_error();
    store_id = *made;
  }
  if (journal) {
    auto st = restore_marks(journal->entries);
    if (!st) return st;
  }
  open_journal(store_id, journal.has_value());
  return ok_status();
}

// Stored and checkpointed at once: the id must not sit in a WAL that a
// damage could drop (the journal would then belong to no database).
Result<std::string> Store::ensure_store_id() {
  std::string id = new_store_id();
  auto ins = db_->prepare("INSERT OR REPLACE INTO meta(key, value) VALUES('store_id', ?1)");
  if (!ins) return ins.take_error();
  auto st = ins->bind(1, id).run();
  if (!st) return st.take_error();
  st = db_->exec("PRAGMA wal_checkpoint(FULL)");
  if (!st) return st.take_error();
  return id;
}

void Store::open_journal(const std::string& store_id, bool exists) {
  std::string path = journal_path(path_);
  auto j = exists ? MarksJournal::open_append(path) : MarksJournal::create(path, store_id);
  if (j) {
    journal_ = std::move(j).value();
    return;
  }
  losses_.push_back({"journal_unavailable",
                     "the marks journal cannot be written (" + j.error().describe() +
                         "); marks are stored, but a later loss of them could not be detected",
                     {}});
}

// One transaction; a run the database lacks gets its acknowledged id back.
Status Store::restore_marks(const std::vector<MarkEntry>& entries) {
  auto st = begin();
  if (!st) return st;
  for (const auto& e : entries) {
    st = e.op == MarkEntry::Op::kStart ? restore_start(e) : restore_stop(e);
    if (!st) {
      (void)rollback();
      return st;
    }
  }
  return commit();
}

Status Store::restore_start(const MarkEntry& e) {
  auto have = runs_.by_id(e.run_id);
  if (!have) return have.take_error();
  if (*have) return ok_status();
  auto boot = ensure_boot(e.boot_id, e.wall_ns);
  if (!boot) return boot.take_error();
  auto ins = db_->prepare(
      "INSERT INTO runs(id, name, tags, boot, start_ns, start_wall_ns, state, items) "
      "VALUES(?1, ?2, ?3, ?4, ?5, ?6, 'open', ?7)");
  if (!ins) return ins.take_error();
  if (e.items) ins->bind(7, *e.items);
  auto st = ins->bind(1, e.run_id)
                .bind(2, e.name)
                .bind(3, e.tags_json.value_or("{}"))
                .bind(4, *boot)
                .bind(5, e.t_ns)
                .bind(6, e.wall_ns)
                .run();
  if (!st) return st;
  losses_.push_back({"run_restored",
                     "run " + std::to_string(e.run_id) + " '" + e.name +
                         "' was acknowledged but missing from the database; restored from the marks journal (its "
                         "readings lost with it are not)",
                     {}});
  return ok_status();
}

Status Store::restore_stop(const MarkEntry& e) {
  auto have = runs_.by_id(e.run_id);
  if (!have) return have.take_error();
  if (!*have) {
    losses_.push_back({"run_missing",
                       "run " + std::to_string(e.run_id) +
                           " was acknowledged as stopped but is missing from the database and the "
                           "journal has no start for it",
                       {}});
    return ok_status();
  }
  if ((*have)->state == RunState::kStopped) return ok_status();
  auto st = runs_.finish(e.run_id, e.t_ns, e.wall_ns, RunState::kStopped);
  if (st && e.tags_json) st = runs_.set_tags(e.run_id, *e.tags_json);
  if (st && e.items) st = runs_.set_items(e.run_id, *e.items);
  if (st && e.start_ns && e.start_wall_ns) st = runs_.set_start(e.run_id, *e.start_ns, *e.start_wall_ns);
  if (!st) return st;
  losses_.push_back({"stop_restored",
                     "run " + std::to_string(e.run_id) + " '" + (*have)->name +
                         "' was acknowledged as stopped but the database had it " + run_state_name((*have)->state) +
                         "; its stop was restored from the marks journal",
                     {}});
  return ok_status();
}

}  // namespace energy
