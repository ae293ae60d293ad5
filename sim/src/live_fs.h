// LiveFs: the file-system side of a live board - the Tree served at the
// mount point, its inode numbers and open handles, and the faults and
// hot-plug events (renumber, vanish, restore) that change what a path leads
// to. fuse_server.cpp translates libfuse calls 1:1 onto it; tests call it
// directly. Errors carry the errno the file operation fails with.
//
// Inodes: kRootIno is "/"; every other number names one path in one tree
// generation and is never reused. When a device vanishes or the hwmon / iio
// devices are renumbered, the numbers under the affected paths die: a lookup
// of the old path fails with ENOENT (or finds the new occupant), and a
// descriptor still open on a dead number fails with ENODEV, as kernfs does
// for removed nodes. A restored device gets new numbers.
//
// Reads: the content is computed from LiveBoard::snapshot() on every read at
// offset 0 and kept with the handle, so a read continued at a later offset
// sees the same text (a value is never torn). Faults apply to reads at offset
// 0 of a rail's value files (RailFileRole::kValue).
//
// Thread-safety: every member may be called from any thread. A blocked read
// waits without holding any lock.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "energy/result.h"
#include "energysim/board_tree.h"
#include "energysim/tree.h"
#include "fault.h"
#include "live_board.h"

namespace energy::sim {

struct FileAttr {
  std::uint64_t ino = 0;
  NodeKind kind = NodeKind::kFile;
  std::uint32_t mode = 0;  // permission bits
  std::uint64_t size = 0;  // files: 4096 as sysfs reports; links: target length
};

struct DirEntry {
  std::string name;
  FileAttr attr;
};

enum class OpenMode { kRead, kWrite };

class LiveFs {
 public:
  static constexpr std::uint64_t kRootIno = 1;

  // Builds the tree numbered by `options`.
  static Result<std::unique_ptr<LiveFs>> create(LiveBoard& board, const TreeOptions& options);

  Result<FileAttr> lookup(std::uint64_t parent, std::string_view name);
  Result<FileAttr> getattr(std::uint64_t ino) const;
  Result<std::string> readlink(std::uint64_t ino) const;
  Result<std::vector<DirEntry>> list(std::uint64_t ino);

  // A handle for read() / write(); EACCES for writing a file without a store.
  Result<std::uint64_t> open(std::uint64_t ino, OpenMode mode);
  // Consults the faults for a read at `offset`: an error (the fault's errno,
  // ENODEV for a dead file) or, for a block fault, what to wait for.
  Result<std::optional<ReadFault>> begin_read(std::uint64_t fh, std::uint64_t offset);
  // Sleeps as `fault` says; EINTR when `interrupted` turns true or on shutdown().
  Status wait(const ReadFault& fault, const std::function<bool()>& interrupted);
  Result<std::string> read(std::uint64_t fh, std::uint64_t offset, std::size_t size);
  Result<std::size_t> write(std::uint64_t fh, std::string_view data);
  void release(std::uint64_t fh);

  // Control. Errors name the device, rail or option at fault.
  Status renumber(const TreeOptions& options);
  Status vanish(std::string_view device);
  Status restore(std::string_view device);
  Status inject(std::string_view rail, const FaultSpec& fault);
  // Every fault when `rail` is empty; kState when the named rail has none.
  Status clear_faults(std::string_view rail);
  std::vector<FaultTable::Entry> faults() const;
  std::vector<std::string> vanished_devices() const;
  TreeOptions numbering() const;

  // Releases every blocked read (they fail with EINTR); later waits return at once.
  void shutdown();

 private:
  struct Inode {
    std::string path;
    FileAttr attr;
    bool dead = false;
  };
  struct Handle {
    std::uint64_t ino = 0;
    std::shared_ptr<const Tree> tree;
    const Node* node = nullptr;
    std::string content;
    bool has_content = false;
  };

  LiveFs(LiveBoard& board, TreeOptions options, TreePlan plan, std::shared_ptr<const Tree> tree);
  const Inode* alive(std::uint64_t ino) const;
  FileAttr attach(const std::string& path, const Node& node);
  bool hidden(const std::string& path) const;
  void refresh_hidden();
  void kill_matching(const std::function<bool(const std::string&)>& doomed);
  Result<std::size_t> monitor_index(std::string_view device) const;
  Result<std::string> content_for(std::uint64_t fh);

  LiveBoard& board_;
  mutable std::mutex mutex_;
  std::condition_variable released_;
  TreeOptions options_;
  TreePlan plan_;
  std::shared_ptr<const Tree> tree_;
  std::map<std::uint64_t, Inode> inodes_;
  std::map<std::string, std::uint64_t> by_path_;  // alive inodes only
  std::uint64_t next_ino_ = kRootIno + 1;
  std::map<std::uint64_t, Handle> handles_;
  std::uint64_t next_fh_ = 1;
  FaultTable faults_;
  std::set<std::string> vanished_devices_;
  std::set<std::string> hidden_;  // paths hidden with everything below them
  bool shut_down_ = false;
};

}  // namespace energy::sim
