// Store guard: what makes "nothing the user already recorded is lost
// silently" true for the database (docs/ARCHITECTURE.md, "Losses are
// reported"). Three checks, all run by Store::open for the writer:
//
//  - scan_wal: SQLite replays WAL frames only up to the first frame whose
//    salt or checksum fails and drops the rest without a word. Before SQLite
//    sees the WAL, the guard scans it (format: sqlite.org/fileformat2.html,
//    "WAL File Format"); frames of the current WAL generation after a bad
//    one, or a bad header with frames behind it, mean committed work would
//    be dropped: the WAL and the database are copied aside as evidence.
//  - MarksJournal (<db>-marks): one JSON line per acknowledged mark, written
//    and fdatasynced after the mark's commit and before its reply. At open,
//    a run or a stop the journal holds but the database lacks is restored.
//  - The journal's first line names the database it belongs to (a store id
//    also kept in the database's meta table): a database that is now
//    missing, empty or another one is reported, never taken silently.
//
// Library code never logs: what was found comes back as StorageLoss values
// (Store::losses()); the daemon logs them and shows them in status.
//
// Thread-safety: reentrant functions; a MarksJournal belongs to one thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "energy/result.h"
#include "energy/unique_fd.h"

namespace energy {

// One thing found lost or damaged when the database was opened.
struct StorageLoss {
  // wal_damaged, database_replaced, run_restored, stop_restored, journal_damaged, ...
  // (docs/ARCHITECTURE.md, "Losses are reported"); the daemon adds ring_dropped, ring_unstored.
  std::string kind;
  std::string message;                // one sentence: what was lost, what energyd did about it
  std::vector<std::string> evidence;  // copies kept aside (paths)
};

// What SQLite will make of a WAL file.
struct WalScan {
  bool header_valid = false;
  int64_t page_size = 0;
  int64_t frames = 0;           // whole frames in the file
  int64_t frames_replayed = 0;  // frames up to the last valid commit: what SQLite keeps
  int64_t first_bad_frame = 0;  // 1-based; 0 when every frame of the generation is valid
  int64_t frames_dropped = 0;   // frames of this generation behind the first bad one (header bad: all)
  int64_t commits_dropped = 0;  // commit frames among them and the bad one: committed transactions
  // Committed transactions would be dropped: frames of the WAL's generation
  // behind a bad frame, with a commit among them or the bad one, or a bad
  // header with frames behind it. A bad frame at the very end is what a
  // power cut leaves mid-write (a transaction not yet synced, by design)
  // and is not damage.
  bool damaged() const { return frames_dropped > 0 && (commits_dropped > 0 || !header_valid); }
};

// The scan of a WAL file's bytes (pure).
WalScan scan_wal(const std::string& bytes);
// The scan of the file at `path`; nullopt when it does not exist or is empty.
Result<std::optional<WalScan>> scan_wal_file(const std::string& path);

// One acknowledged mark.
struct MarkEntry {
  enum class Op { kStart, kStop };
  Op op = Op::kStart;
  int64_t run_id = 0;
  std::string name;                      // kStart
  std::string boot_id;                   // kStart: the boot's id (boots.boot_id)
  int64_t t_ns = 0;                      // start_ns or stop_ns
  int64_t wall_ns = 0;                   // start_wall_ns or stop_wall_ns
  std::optional<std::string> tags_json;  // kStart: the tags; kStop: set when the stop rewrote them
  std::optional<double> items;           // the run's item count when it has one (kStop: the stop's)
  // kStop: the run's start as the stop stored it (it moves after the start
  // entry: to the sample of mark.start's reply, or to the command's span).
  std::optional<int64_t> start_ns;
  std::optional<int64_t> start_wall_ns;
};

struct MarksJournalContents {
  std::string store_id;
  std::vector<MarkEntry> entries;
  std::vector<int> bad_lines;  // 1-based lines that could not be read (a torn last line after a power cut)
};

// Append-only journal of acknowledged marks: a header line
// {"format":"energyd-marks","version":1,"store_id":...}, then one line per mark.
class MarksJournal {
 public:
  // Contents of the journal at `path`; nullopt when there is none. A
  // missing or wrong header is kParse.
  static Result<std::optional<MarksJournalContents>> read(const std::string& path);
  // A new journal holding only its header (replacing any file at `path`), durably.
  static Result<MarksJournal> create(const std::string& path, const std::string& store_id);
  // The existing journal, for appending.
  static Result<MarksJournal> open_append(const std::string& path);
  // One line, then fdatasync: on return the mark survives a power cut.
  Status append(const MarkEntry& entry);
  const std::string& path() const { return path_; }

 private:
  MarksJournal(UniqueFd fd, std::string path) : fd_(std::move(fd)), path_(std::move(path)) {}
  UniqueFd fd_;
  std::string path_;
};

}  // namespace energy
