#include "energysim/tree.h"

#include <cerrno>
#include <deque>

#include "path_util.h"

namespace energy::sim {
namespace {

constexpr int kMaxSymlinkHops = 40;  // the kernel's MAXSYMLINKS

// Adding what is already there is fine for directories and identical links.
bool same_node(const Node& a, const Node& b) {
  if (a.kind() != b.kind()) return false;
  if (a.kind() == NodeKind::kDirectory) return true;
  return a.kind() == NodeKind::kSymlink && a.link_target() == b.link_target();
}

Status visit_children(const Node& dir, const std::string& dir_path, const Tree::Visitor& visit) {
  for (const auto& [name, child] : dir.children()) {
    const std::string path = join_path(dir_path, name);
    Status status = visit(path, *child);
    if (status.ok() && child->kind() == NodeKind::kDirectory) status = visit_children(*child, path, visit);
    if (!status.ok()) return status;
  }
  return ok_status();
}

}  // namespace

const Node* Node::child(std::string_view name) const {
  const auto it = children_.find(name);
  return it == children_.end() ? nullptr : it->second.get();
}

Result<std::string> Node::read(const BoardState& state) const {
  if (kind_ == NodeKind::kDirectory) return make_error(ErrorCode::kInvalid, "is a directory", EISDIR);
  if (kind_ != NodeKind::kFile) return make_error(ErrorCode::kInvalid, "is a symlink", EINVAL);
  if (fixed_errno_ != 0) return make_error(ErrorCode::kIo, "read fails as on the board", fixed_errno_);
  if (!content_) return std::string();
  return content_(state);
}

Status Node::write(BoardState& state, std::string_view text) const {
  if (kind_ == NodeKind::kDirectory) return make_error(ErrorCode::kInvalid, "is a directory", EISDIR);
  if (kind_ != NodeKind::kFile) return make_error(ErrorCode::kInvalid, "is a symlink", EINVAL);
  if (!write_) return make_error(ErrorCode::kDenied, "file has no store function", EACCES);
  return write_(state, text);
}

Tree::Tree() : root_(new Node(NodeKind::kDirectory, kModeDirectory)) {}

void Tree::add_directory(std::string_view path) {
  insert(path, std::unique_ptr<Node>(new Node(NodeKind::kDirectory, kModeDirectory)));
}

void Tree::add_file(std::string_view path, std::uint32_t mode, ContentFn content) {
  std::unique_ptr<Node> node(new Node(NodeKind::kFile, mode));
  node->content_ = std::move(content);
  insert(path, std::move(node));
}

void Tree::add_file(std::string_view path, std::uint32_t mode, ContentFn content, WriteFn write) {
  std::unique_ptr<Node> node(new Node(NodeKind::kFile, mode));
  node->content_ = std::move(content);
  node->write_ = std::move(write);
  insert(path, std::move(node));
}

void Tree::add_text_file(std::string_view path, std::uint32_t mode, std::string content) {
  add_file(path, mode, [text = std::move(content)](const BoardState&) -> Result<std::string> { return text; });
}

void Tree::add_failing_file(std::string_view path, std::uint32_t mode, int sys_errno) {
  std::unique_ptr<Node> node(new Node(NodeKind::kFile, mode));
  node->fixed_errno_ = sys_errno;
  insert(path, std::move(node));
}

void Tree::add_symlink(std::string_view path, std::string target) {
  std::unique_ptr<Node> node(new Node(NodeKind::kSymlink, kModeSymlink));
  node->target_ = std::move(target);
  insert(path, std::move(node));
}

void Tree::add_sysfs_link(std::string_view path, std::string_view target_path) {
  add_symlink(path, sysfs_link_target(path, target_path));
}

void Tree::tag_rail(std::string_view path, std::string rail_id, RailFileRole role) {
  if (error_) return;
  Node* node = root_.get();
  for (const std::string& part : split_path(path)) {
    const auto it = node->children_.find(part);
    node = it == node->children_.end() ? nullptr : it->second.get();
    if (node == nullptr) break;
  }
  if (node == nullptr || node->kind_ != NodeKind::kFile) return fail(path, "cannot be tagged: not a file");
  node->rail_id_ = std::move(rail_id);
  node->rail_role_ = role;
}

Status Tree::status() const {
  if (error_) return *error_;
  return ok_status();
}

void Tree::insert(std::string_view path, std::unique_ptr<Node> node) {
  if (error_) return;
  const std::vector<std::string> parts = split_path(path);
  if (parts.empty()) return fail(path, "is the root");
  Node* dir = parent_directory(path, parts);
  if (dir == nullptr) return;
  const auto [it, inserted] = dir->children_.try_emplace(parts.back(), std::move(node));
  if (!inserted && !same_node(*it->second, *node)) fail(path, "already exists as another node");
}

Node* Tree::parent_directory(std::string_view path, const std::vector<std::string>& parts) {
  Node* dir = root_.get();
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    auto it = dir->children_.find(parts[i]);
    if (it == dir->children_.end()) {
      it = dir->children_.try_emplace(parts[i], new Node(NodeKind::kDirectory, kModeDirectory)).first;
    }
    if (it->second->kind_ != NodeKind::kDirectory) {
      fail(path, "has a parent that is not a directory");
      return nullptr;
    }
    dir = it->second.get();
  }
  return dir;
}

void Tree::fail(std::string_view path, const std::string& why) {
  if (!error_) error_ = make_error(ErrorCode::kState, "simulated tree: " + std::string(path) + " " + why);
}

const Node* Tree::find(std::string_view path) const {
  const Node* node = root_.get();
  for (const std::string& part : split_path(path)) {
    node = node->child(part);
    if (node == nullptr) return nullptr;
  }
  return node;
}

const Node* Tree::resolve(std::string_view path) const {
  std::vector<const Node*> walked = {root_.get()};  // the directories from the root down
  const std::vector<std::string> parts = split_path(path);
  std::deque<std::string> todo(parts.begin(), parts.end());
  int hops = 0;
  while (!todo.empty()) {
    const std::string part = std::move(todo.front());
    todo.pop_front();
    if (part == "." || (part == ".." && walked.size() == 1)) continue;
    if (part == "..") {
      walked.pop_back();
      continue;
    }
    const Node* next = walked.back()->child(part);
    if (next == nullptr) return nullptr;
    if (next->kind() != NodeKind::kSymlink) {
      walked.push_back(next);
      continue;
    }
    if (++hops > kMaxSymlinkHops) return nullptr;
    if (!next->link_target().empty() && next->link_target().front() == '/') walked.resize(1);
    const std::vector<std::string> target = split_path(next->link_target());
    todo.insert(todo.begin(), target.begin(), target.end());
  }
  return walked.back();
}

Result<std::string> Tree::read(std::string_view path, const BoardState& state) const {
  const Node* node = resolve(path);
  if (node == nullptr) return make_error(ErrorCode::kNotFound, "no such file: " + std::string(path), ENOENT);
  Result<std::string> content = node->read(state);
  if (!content)
    return make_error(content.error().code, std::string(path) + ": " + content.error().message,
                      content.error().sys_errno);
  return content;
}

Status Tree::visit(const Visitor& visitor) const { return visit_children(*root_, "/", visitor); }

}  // namespace energy::sim
