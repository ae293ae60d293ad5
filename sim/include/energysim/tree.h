// Tree: the in-memory file tree of one simulated board - directories,
// regular files and symlinks - as a FUSE server or the static materialiser
// presents it. A file's bytes are a function of a BoardState evaluated at
// read time: a FUSE server calls Node::read() on every read(2), the
// materialiser once. A file may instead fail every read with a fixed errno
// (e.g. ENODATA for a disabled INA3221 channel), as the kernel driver does.
// A writable file has a write function that validates the written text as
// the kernel's store function does and changes a BoardState (the live server
// applies it to its model; the materialiser ignores it). Files that belong to
// one power-monitor channel carry that channel's rail id, so a live server
// can inject faults per rail.
//
// Paths are absolute within the tree ("/sys/class/hwmon/hwmon0"). Symlink
// targets are stored verbatim: relative ("../../devices/...") as sysfs makes
// them, or absolute (the /proc/device-tree quirk), which a consumer must
// resolve against its own root.
//
// Building records the FIRST error (a path that exists with another kind or
// another link target, or a parent that is not a directory) and ignores later
// additions, so a builder checks status() once at the end.
//
// Thread-safety: build on one thread; a built Tree is immutable and its const
// members may be called concurrently, each with a BoardState nobody writes.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "energy/result.h"
#include "energysim/board_state.h"

namespace energy::sim {

enum class NodeKind { kDirectory, kFile, kSymlink };

// Produces a file's bytes, or an Error whose sys_errno is what read(2) fails with.
using ContentFn = std::function<Result<std::string>(const BoardState&)>;
// Applies the text written to a file (as write(2) passed it, usually with a
// trailing newline) to `state`; an Error's sys_errno is what write(2) fails
// with (EINVAL for a value the kernel refuses). `state` holds the effective
// values (cur_khz, cur_hz) of the moment, which a store may copy.
using WriteFn = std::function<Status(BoardState& state, std::string_view text)>;

// How a file relates to a power-monitor channel.
enum class RailFileRole {
  kNone,   // not a channel file
  kInfo,   // label, enable, limits, shunt: fixed per channel
  kValue,  // a converted value (voltage, current, power): what sensor faults hit
};

inline constexpr std::uint32_t kModeDirectory = 0755;
inline constexpr std::uint32_t kModeSymlink = 0777;

class Node {
 public:
  using Children = std::map<std::string, std::unique_ptr<Node>, std::less<>>;

  NodeKind kind() const { return kind_; }
  std::uint32_t mode() const { return mode_; }                 // permission bits, e.g. 0444
  const std::string& link_target() const { return target_; }   // symlinks only
  int fixed_errno() const { return fixed_errno_; }             // files: != 0 -> every read fails
  bool writable() const { return static_cast<bool>(write_); }  // files with a store function
  const std::string& rail_id() const { return rail_id_; }      // channel files: "1-0040:1"; else empty
  RailFileRole rail_role() const { return rail_role_; }
  const Children& children() const { return children_; }  // directories only, sorted by name
  const Node* child(std::string_view name) const;

  // A file's content for `state`; errors: EISDIR / EINVAL for non-files, the
  // fixed errno, or whatever the content function reports.
  Result<std::string> read(const BoardState& state) const;
  // Applies a write; EACCES for files without a store function (kernfs
  // refuses to open those for writing), EISDIR / EINVAL for non-files.
  Status write(BoardState& state, std::string_view text) const;

 private:
  friend class Tree;
  Node(NodeKind kind, std::uint32_t mode) : kind_(kind), mode_(mode) {}

  NodeKind kind_;
  std::uint32_t mode_;
  int fixed_errno_ = 0;
  ContentFn content_;
  WriteFn write_;
  std::string rail_id_;
  RailFileRole rail_role_ = RailFileRole::kNone;
  std::string target_;
  Children children_;
};

class Tree {
 public:
  Tree();

  // Each add creates missing parent directories (mode 0755).
  void add_directory(std::string_view path);
  void add_file(std::string_view path, std::uint32_t mode, ContentFn content);
  // A writable file: `content` shows the state, `write` changes it.
  void add_file(std::string_view path, std::uint32_t mode, ContentFn content, WriteFn write);
  // A file whose bytes never change (they are exactly `content`).
  void add_text_file(std::string_view path, std::uint32_t mode, std::string content);
  // A file that exists but whose every read fails with `sys_errno`.
  void add_failing_file(std::string_view path, std::uint32_t mode, int sys_errno);
  // A symlink holding `target` verbatim.
  void add_symlink(std::string_view path, std::string target);
  // A relative symlink to the tree path `target_path`, spelt as sysfs spells
  // it: "../" up to the nearest common ancestor of the link's directory and
  // the target's parent, then down (hwmon3/device -> ../../../1-0040).
  void add_sysfs_link(std::string_view path, std::string_view target_path);
  // Marks the file at `path` (added before) as belonging to channel `rail_id`.
  void tag_rail(std::string_view path, std::string rail_id, RailFileRole role);

  // The first building error, or ok.
  Status status() const;

  const Node& root() const { return *root_; }
  // The node at `path` itself (a symlink is not followed); nullptr if absent.
  const Node* find(std::string_view path) const;
  // The node `path` leads to, following symlinks inside the tree (absolute
  // targets from the tree root, at most 40 hops); nullptr if it leads nowhere.
  const Node* resolve(std::string_view path) const;
  // resolve() + Node::read(); ENOENT (kNotFound) when the path leads nowhere.
  Result<std::string> read(std::string_view path, const BoardState& state) const;

  // Calls `visitor` for every node below the root, parents before children,
  // siblings by name; stops at and returns the first error.
  using Visitor = std::function<Status(const std::string& path, const Node& node)>;
  Status visit(const Visitor& visitor) const;

 private:
  void insert(std::string_view path, std::unique_ptr<Node> node);
  Node* parent_directory(std::string_view path, const std::vector<std::string>& parts);
  void fail(std::string_view path, const std::string& why);

  std::unique_ptr<Node> root_;
  std::optional<Error> error_;
};

}  // namespace energy::sim
