// Static materialiser: POSIX calls on the given root only; every fd has an
// owner (UniqueFd); std::filesystem is used in its non-throwing forms.
#include "energysim/materialize.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "energy/unique_fd.h"

namespace energy::sim {
namespace {

namespace fs = std::filesystem;

constexpr const char* kMarkerHeader = "energyd-sim 1";

std::string host_path(const std::string& root, const std::string& tree_path) {
  return root == "/" ? tree_path : root + tree_path;
}

Status write_all(int fd, const std::string& bytes, const std::string& path) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno_error("cannot write " + path);
    done += static_cast<std::size_t>(n);
  }
  return ok_status();
}

// Creates `path` with exactly `mode` (fchmod: the umask must not narrow it).
Status write_file(const std::string& path, const std::string& bytes, std::uint32_t mode) {
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!fd) return errno_error("cannot create " + path);
  Status written = write_all(fd.get(), bytes, path);
  if (!written) return written;
  if (::fchmod(fd.get(), static_cast<mode_t>(mode)) != 0) return errno_error("cannot chmod " + path);
  return ok_status();
}

bool is_empty_dir(const std::string& dir, std::error_code& ec) { return fs::is_empty(dir, ec); }

bool has_marker(const std::string& root) {
  std::ifstream in(root + "/" + kMarkerFileName);
  std::string first;
  return std::getline(in, first) && first == kMarkerHeader;
}

Status clear_directory(const std::string& root) {
  std::error_code ec;
  for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    fs::remove_all(it->path(), ec);
    if (ec) break;
  }
  if (ec) return make_error(ErrorCode::kIo, "cannot empty " + root + ": " + ec.message(), ec.value());
  return ok_status();
}

// An absent root is created; an empty one is used; a previous simulator tree
// is emptied when allowed; anything else is refused untouched.
Status prepare_root(const std::string& root, ExistingRoot existing) {
  std::error_code ec;
  if (!fs::exists(root, ec)) {
    fs::create_directories(root, ec);
    if (ec) return make_error(ErrorCode::kIo, "cannot create " + root + ": " + ec.message(), ec.value());
    return ok_status();
  }
  if (!fs::is_directory(root, ec)) return make_error(ErrorCode::kState, root + " exists and is not a directory");
  if (is_empty_dir(root, ec)) return ok_status();
  if (!has_marker(root)) {
    return make_error(ErrorCode::kState,
                      root + " is not empty and holds no " + kMarkerFileName + " marker: refusing to touch it");
  }
  if (existing != ExistingRoot::kReplaceSimulatorTree) {
    return make_error(ErrorCode::kState, root + " holds a previous energyd-sim tree; pass --force to replace it");
  }
  return clear_directory(root);
}

std::string marker_text(const MaterializeOptions& options, const std::vector<FailingFile>& failing) {
  std::ostringstream out;
  out << kMarkerHeader << "\nboard " << options.board_id << "\nl4t " << options.l4t << "\n";
  for (const FailingFile& f : failing) out << "errno " << errno_name(f.sys_errno) << " " << f.path << "\n";
  return out.str();
}

Status write_marker(const std::string& root, const MaterializeOptions& options,
                    const std::vector<FailingFile>& failing) {
  const std::string path = root + "/" + kMarkerFileName;
  std::error_code ec;
  fs::remove(path, ec);
  return write_file(path, marker_text(options, failing), 0644);
}

class Writer {
 public:
  Writer(const std::string& root, const BoardState& state) : root_(root), state_(state) {}

  Status operator()(const std::string& tree_path, const Node& node) {
    const std::string path = host_path(root_, tree_path);
    switch (node.kind()) {
      case NodeKind::kDirectory: return make_directory(path, node.mode());
      case NodeKind::kSymlink: return make_symlink(path, node.link_target());
      case NodeKind::kFile: return make_file(tree_path, path, node);
    }
    return ok_status();
  }
  MaterializeReport take_report() { return std::move(report_); }

 private:
  // chmod after mkdir: the umask must not narrow the mode.
  Status make_directory(const std::string& path, std::uint32_t mode) {
    if (::mkdir(path.c_str(), static_cast<mode_t>(mode)) != 0) return errno_error("cannot create directory " + path);
    if (::chmod(path.c_str(), static_cast<mode_t>(mode)) != 0) return errno_error("cannot chmod " + path);
    ++report_.directories;
    return ok_status();
  }
  Status make_symlink(const std::string& path, const std::string& target) {
    if (::symlink(target.c_str(), path.c_str()) != 0) return errno_error("cannot create symlink " + path);
    ++report_.symlinks;
    return ok_status();
  }
  // A read that fails on the board cannot fail here: the file is left empty
  // and the errno goes into the report (and the marker).
  Status make_file(const std::string& tree_path, const std::string& path, const Node& node) {
    Result<std::string> content = node.read(state_);
    if (!content) report_.failing_files.push_back(FailingFile{tree_path, content.error().sys_errno});
    ++report_.files;
    return write_file(path, content ? *content : std::string(), node.mode());
  }

  const std::string& root_;
  const BoardState& state_;
  MaterializeReport report_;
};

std::string normalised(std::string root) {
  while (root.size() > 1 && root.back() == '/') root.pop_back();
  return root;
}

}  // namespace

Result<MaterializeReport> materialize_tree(const Tree& tree, const BoardState& state, const std::string& root_dir,
                                           const MaterializeOptions& options) {
  const std::string root = normalised(root_dir);
  if (root.empty()) return make_error(ErrorCode::kInvalid, "empty root directory");
  Status prepared = prepare_root(root, options.existing);
  if (!prepared) return prepared.take_error();
  // The marker goes first, so a failed, partial tree can still be replaced.
  Status marked = write_marker(root, options, {});
  if (!marked) return marked.take_error();
  Writer writer(root, state);
  Status written = tree.visit(std::ref(writer));
  if (!written) return written.take_error();
  MaterializeReport report = writer.take_report();
  marked = write_marker(root, options, report.failing_files);
  if (!marked) return marked.take_error();
  return report;
}

}  // namespace energy::sim
