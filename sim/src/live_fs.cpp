#include "live_fs.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>

#include "energy/attr_file.h"
#include "path_util.h"

namespace energy::sim {
namespace {

constexpr std::uint64_t kSysfsFileSize = 4096;       // what sysfs reports for every attribute
constexpr std::chrono::milliseconds kWaitSlice{20};  // how often a blocked read checks for interrupts

Error fs_error(int sys_errno, std::string what) { return make_error(ErrorCode::kIo, std::move(what), sys_errno); }

FileAttr attr_of(std::uint64_t ino, const Node& node) {
  FileAttr a{ino, node.kind(), node.mode(), 0};
  if (node.kind() == NodeKind::kFile) a.size = kSysfsFileSize;
  if (node.kind() == NodeKind::kSymlink) a.size = node.link_target().size();
  return a;
}

// A path through a kernel-numbered monitor node: hwmonN or iio:deviceN.
bool through_numbered_node(const std::string& path) {
  for (const std::string& part : split_path(path)) {
    if (part.rfind("hwmon", 0) == 0 && all_digits(std::string_view(part).substr(5))) return true;
    if (part.rfind("iio:device", 0) == 0 && all_digits(std::string_view(part).substr(10))) return true;
  }
  return false;
}

std::map<std::string, std::vector<std::string>> tagged_paths(const Tree& tree) {
  std::map<std::string, std::vector<std::string>> out;
  (void)tree.visit([&out](const std::string& path, const Node& node) -> Status {
    if (node.rail_role() != RailFileRole::kNone) out[node.rail_id()].push_back(path);
    return ok_status();
  });
  return out;
}

Result<std::shared_ptr<const Tree>> built_tree(const BoardSpec& spec, const TreePlan& plan) {
  Result<Tree> tree = build_board_tree(spec, plan);
  if (!tree) return tree.take_error();
  return std::shared_ptr<const Tree>(std::make_shared<Tree>(std::move(tree).value()));
}

}  // namespace

Result<std::unique_ptr<LiveFs>> LiveFs::create(LiveBoard& board, const TreeOptions& options) {
  Result<TreePlan> plan = plan_tree(board.spec(), options);
  if (!plan) return plan.take_error();
  Result<std::shared_ptr<const Tree>> tree = built_tree(board.spec(), *plan);
  if (!tree) return tree.take_error();
  return std::unique_ptr<LiveFs>(new LiveFs(board, options, std::move(plan).value(), std::move(tree).value()));
}

LiveFs::LiveFs(LiveBoard& board, TreeOptions options, TreePlan plan, std::shared_ptr<const Tree> tree)
    : board_(board), options_(options), plan_(std::move(plan)), tree_(std::move(tree)) {
  inodes_[kRootIno] = Inode{"/", attr_of(kRootIno, tree_->root()), false};
  by_path_["/"] = kRootIno;
}

// ---- paths and inodes ------------------------------------------------------

const LiveFs::Inode* LiveFs::alive(std::uint64_t ino) const {
  const auto it = inodes_.find(ino);
  return it == inodes_.end() || it->second.dead ? nullptr : &it->second;
}

FileAttr LiveFs::attach(const std::string& path, const Node& node) {
  const auto known = by_path_.find(path);
  if (known != by_path_.end()) return inodes_[known->second].attr;
  const std::uint64_t ino = next_ino_++;
  inodes_[ino] = Inode{path, attr_of(ino, node), false};
  by_path_[path] = ino;
  return inodes_[ino].attr;
}

bool LiveFs::hidden(const std::string& path) const {
  for (std::string p = path;; p = parent_path(p)) {
    if (hidden_.count(p) != 0) return true;
    if (p == "/") return false;
  }
}

void LiveFs::refresh_hidden() {
  hidden_.clear();
  for (std::size_t i = 0; i < board_.spec().monitors.size(); ++i) {
    if (vanished_devices_.count(board_.spec().monitors[i].device_name()) == 0) continue;
    for (const std::string& path : monitor_paths(board_.spec(), plan_, i)) hidden_.insert(path);
  }
  const std::map<std::string, std::vector<std::string>> tagged = tagged_paths(*tree_);
  for (const FaultTable::Entry& entry : faults_.entries()) {
    const auto it = tagged.find(entry.rail_id);
    if (entry.fault.kind == FaultKind::kVanish && it != tagged.end())
      hidden_.insert(it->second.begin(), it->second.end());
  }
  kill_matching([this](const std::string& path) { return hidden(path); });
}

void LiveFs::kill_matching(const std::function<bool(const std::string&)>& doomed) {
  for (auto it = by_path_.begin(); it != by_path_.end();) {
    if (it->second == kRootIno || !doomed(it->first)) {
      ++it;
      continue;
    }
    inodes_[it->second].dead = true;
    it = by_path_.erase(it);
  }
}

Result<FileAttr> LiveFs::lookup(std::uint64_t parent, std::string_view name) {
  std::lock_guard<std::mutex> lock(mutex_);
  const Inode* dir = alive(parent);
  if (dir == nullptr) return fs_error(ENOENT, "directory inode " + std::to_string(parent) + " is gone");
  const std::string path = join_path(dir->path, name);
  const Node* node = hidden(path) ? nullptr : tree_->find(path);
  if (node == nullptr) return fs_error(ENOENT, "no such file: " + path);
  return attach(path, *node);
}

Result<FileAttr> LiveFs::getattr(std::uint64_t ino) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = inodes_.find(ino);
  if (it == inodes_.end()) return fs_error(ENOENT, "unknown inode " + std::to_string(ino));
  return it->second.attr;  // a dead inode keeps its attributes: fstat() on an old descriptor works
}

Result<std::string> LiveFs::readlink(std::uint64_t ino) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const Inode* inode = alive(ino);
  const Node* node = inode == nullptr ? nullptr : tree_->find(inode->path);
  if (node == nullptr) return fs_error(ENOENT, "inode " + std::to_string(ino) + " is gone");
  if (node->kind() != NodeKind::kSymlink) return fs_error(EINVAL, inode->path + " is not a symlink");
  return node->link_target();
}

Result<std::vector<DirEntry>> LiveFs::list(std::uint64_t ino) {
  std::lock_guard<std::mutex> lock(mutex_);
  const Inode* inode = alive(ino);
  const Node* node = inode == nullptr ? nullptr : tree_->find(inode->path);
  if (node == nullptr) return fs_error(ENODEV, "directory inode " + std::to_string(ino) + " is gone");
  if (node->kind() != NodeKind::kDirectory) return fs_error(ENOTDIR, inode->path + " is not a directory");
  const std::string dir = inode->path;
  std::vector<DirEntry> out;
  for (const auto& [name, child] : node->children()) {
    const std::string path = join_path(dir, name);
    if (!hidden(path)) out.push_back(DirEntry{name, attach(path, *child)});
  }
  return out;
}

// ---- handles -----------------------------------------------------------------

Result<std::uint64_t> LiveFs::open(std::uint64_t ino, OpenMode mode) {
  std::lock_guard<std::mutex> lock(mutex_);
  const Inode* inode = alive(ino);
  if (inode == nullptr) return fs_error(ENODEV, "inode " + std::to_string(ino) + " is gone");
  const Node* node = tree_->find(inode->path);
  if (node == nullptr) return fs_error(ENOENT, "no such file: " + inode->path);
  if (node->kind() == NodeKind::kDirectory) return fs_error(EISDIR, inode->path + " is a directory");
  if (mode == OpenMode::kWrite && !node->writable()) return fs_error(EACCES, inode->path + " is not writable");
  const std::uint64_t fh = next_fh_++;
  handles_[fh] = Handle{ino, tree_, node, std::string(), false};
  return fh;
}

Result<std::optional<ReadFault>> LiveFs::begin_read(std::uint64_t fh, std::uint64_t offset) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = handles_.find(fh);
  if (it == handles_.end()) return fs_error(EBADF, "unknown handle " + std::to_string(fh));
  if (alive(it->second.ino) == nullptr) return fs_error(ENODEV, "the file was removed");
  const Node& node = *it->second.node;
  if (offset != 0 || node.rail_role() != RailFileRole::kValue) return std::optional<ReadFault>();
  std::optional<ReadFault> fault = faults_.on_read(node.rail_id());
  if (fault && fault->sys_errno != 0) return fs_error(fault->sys_errno, "injected fault on rail " + node.rail_id());
  return fault;
}

Status LiveFs::wait(const ReadFault& fault, const std::function<bool()>& interrupted) {
  const auto start = std::chrono::steady_clock::now();
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    if (shut_down_ || interrupted()) return fs_error(EINTR, "blocked read interrupted");
    if (faults_.released(fault)) return ok_status();
    auto slice = kWaitSlice;
    if (fault.block_ms) {
      const auto left = start + std::chrono::milliseconds(*fault.block_ms) - std::chrono::steady_clock::now();
      if (left <= std::chrono::steady_clock::duration::zero()) return ok_status();
      slice =
          std::min(slice, std::chrono::duration_cast<std::chrono::milliseconds>(left) + std::chrono::milliseconds(1));
    }
    released_.wait_for(lock, slice);
  }
}

Result<std::string> LiveFs::content_for(std::uint64_t fh) {
  std::unique_lock<std::mutex> lock(mutex_);
  const auto it = handles_.find(fh);
  if (it == handles_.end()) return fs_error(EBADF, "unknown handle " + std::to_string(fh));
  if (alive(it->second.ino) == nullptr) return fs_error(ENODEV, "the file was removed");
  const Node* node = it->second.node;
  const std::shared_ptr<const Tree> keep = it->second.tree;  // keeps `node` alive while unlocked
  lock.unlock();
  Result<std::string> content = node->read(board_.snapshot());
  if (!content) return content;
  lock.lock();
  const auto again = handles_.find(fh);
  if (again != handles_.end()) {
    again->second.content = *content;
    again->second.has_content = true;
  }
  return content;
}

Result<std::string> LiveFs::read(std::uint64_t fh, std::uint64_t offset, std::size_t size) {
  std::string content;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = handles_.find(fh);
    if (it == handles_.end()) return fs_error(EBADF, "unknown handle " + std::to_string(fh));
    if (offset != 0 && it->second.has_content) content = it->second.content;
  }
  if (offset == 0 || content.empty()) {
    Result<std::string> fresh = content_for(fh);
    if (!fresh) return fresh;
    content = std::move(fresh).value();
  }
  if (offset >= content.size()) return std::string();
  return content.substr(static_cast<std::size_t>(offset), size);
}

Result<std::size_t> LiveFs::write(std::uint64_t fh, std::string_view data) {
  std::unique_lock<std::mutex> lock(mutex_);
  const auto it = handles_.find(fh);
  if (it == handles_.end()) return fs_error(EBADF, "unknown handle " + std::to_string(fh));
  if (alive(it->second.ino) == nullptr) return fs_error(ENODEV, "the file was removed");
  const Node* node = it->second.node;
  const std::shared_ptr<const Tree> keep = it->second.tree;
  lock.unlock();
  Status written = board_.write(*node, data);
  if (!written) return written.take_error();
  return data.size();
}

void LiveFs::release(std::uint64_t fh) {
  std::lock_guard<std::mutex> lock(mutex_);
  handles_.erase(fh);
}

// ---- control -------------------------------------------------------------------

Status LiveFs::renumber(const TreeOptions& options) {
  Result<TreePlan> plan = plan_tree(board_.spec(), options);
  if (!plan) return plan.take_error();
  Result<std::shared_ptr<const Tree>> tree = built_tree(board_.spec(), *plan);
  if (!tree) return tree.take_error();
  std::lock_guard<std::mutex> lock(mutex_);
  options_ = options;
  plan_ = std::move(plan).value();
  tree_ = std::move(tree).value();
  kill_matching(through_numbered_node);
  refresh_hidden();
  return ok_status();
}

Result<std::size_t> LiveFs::monitor_index(std::string_view device) const {
  std::string known;
  for (std::size_t i = 0; i < board_.spec().monitors.size(); ++i) {
    const std::string name = board_.spec().monitors[i].device_name();
    if (name == device) return i;
    known += (known.empty() ? "" : ", ") + name;
  }
  return make_error(ErrorCode::kNotFound, "no i2c device '" + std::string(device) + "' (devices: " + known + ")");
}

Status LiveFs::vanish(std::string_view device) {
  Result<std::size_t> index = monitor_index(device);
  if (!index) return index.take_error();
  std::lock_guard<std::mutex> lock(mutex_);
  if (!vanished_devices_.insert(std::string(device)).second) {
    return make_error(ErrorCode::kState, "device " + std::string(device) + " has already vanished");
  }
  refresh_hidden();
  return ok_status();
}

Status LiveFs::restore(std::string_view device) {
  Result<std::size_t> index = monitor_index(device);
  if (!index) return index.take_error();
  std::lock_guard<std::mutex> lock(mutex_);
  if (vanished_devices_.erase(std::string(device)) == 0) {
    return make_error(ErrorCode::kState, "device " + std::string(device) + " has not vanished");
  }
  refresh_hidden();
  return ok_status();
}

Status LiveFs::inject(std::string_view rail, const FaultSpec& fault) {
  Status valid = check_fault(fault);
  if (!valid) return valid;
  Result<std::string> id = resolve_rail(board_.spec(), rail);
  if (!id) return id.take_error();
  std::lock_guard<std::mutex> lock(mutex_);
  faults_.set(*id, fault);
  refresh_hidden();
  released_.notify_all();  // a replaced block fault releases its readers
  return ok_status();
}

Status LiveFs::clear_faults(std::string_view rail) {
  std::string id;
  if (!rail.empty()) {
    Result<std::string> resolved = resolve_rail(board_.spec(), rail);
    if (!resolved) return resolved.take_error();
    id = *resolved;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  const std::size_t cleared = faults_.clear(id);
  refresh_hidden();
  released_.notify_all();
  if (!rail.empty() && cleared == 0)
    return make_error(ErrorCode::kState, "rail '" + std::string(rail) + "' has no fault");
  return ok_status();
}

std::vector<FaultTable::Entry> LiveFs::faults() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return faults_.entries();
}

std::vector<std::string> LiveFs::vanished_devices() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return std::vector<std::string>(vanished_devices_.begin(), vanished_devices_.end());
}

TreeOptions LiveFs::numbering() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return options_;
}

void LiveFs::shutdown() {
  std::lock_guard<std::mutex> lock(mutex_);
  shut_down_ = true;
  released_.notify_all();
}

}  // namespace energy::sim
