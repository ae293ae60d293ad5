// The WAL scan and the marks journal (store_guard.h).
#include "energy/store_guard.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <iterator>

#include <nlohmann/json.hpp>

#include "energy/durable_file.h"

namespace energy {
namespace {

constexpr size_t kWalHeaderBytes = 32;
constexpr size_t kFrameHeaderBytes = 24;
constexpr uint32_t kWalMagic = 0x377f0682;  // | 1: checksums over big-endian words
constexpr uint32_t kWalVersion = 3007000;

uint32_t be32(const unsigned char* p) {
  return uint32_t{p[0]} << 24 | uint32_t{p[1]} << 16 | uint32_t{p[2]} << 8 | uint32_t{p[3]};
}
uint32_t le32(const unsigned char* p) {
  return uint32_t{p[3]} << 24 | uint32_t{p[2]} << 16 | uint32_t{p[1]} << 8 | uint32_t{p[0]};
}

// SQLite's WAL checksum: a running pair over 32-bit words taken two at a
// time, in the byte order the magic number names.
struct Checksum {
  uint32_t s0 = 0;
  uint32_t s1 = 0;
  void add(const unsigned char* p, size_t n, bool big_endian) {
    for (size_t i = 0; i + 8 <= n; i += 8) {
      s0 += (big_endian ? be32(p + i) : le32(p + i)) + s1;
      s1 += (big_endian ? be32(p + i + 4) : le32(p + i + 4)) + s0;
    }
  }
  bool matches(const unsigned char* p) const { return s0 == be32(p) && s1 == be32(p + 4); }
};

struct WalHeader {
  bool valid = false;
  bool big_endian = false;
  int64_t page_size = 0;
  uint32_t salt1 = 0;
  uint32_t salt2 = 0;
  Checksum sum;
};

bool plausible_page_size(int64_t n) { return n >= 512 && n <= 65536 && (n & (n - 1)) == 0; }

WalHeader read_header(const unsigned char* p) {
  WalHeader h;
  uint32_t magic = be32(p);
  h.big_endian = (magic & 1) != 0;
  h.page_size = be32(p + 8);
  h.salt1 = be32(p + 16);
  h.salt2 = be32(p + 20);
  h.sum.add(p, 24, h.big_endian);
  h.valid = (magic & ~1u) == kWalMagic && be32(p + 4) == kWalVersion && plausible_page_size(h.page_size) &&
            h.sum.matches(p + 24);
  if (!plausible_page_size(h.page_size)) h.page_size = 4096;  // to count what is behind a broken header
  return h;
}

// Every frame is lost with a bad header: SQLite ignores the whole file.
void count_behind_bad_header(const unsigned char* p, size_t size, WalScan& out) {
  size_t frame = kFrameHeaderBytes + static_cast<size_t>(out.page_size);
  for (size_t off = kWalHeaderBytes; off + frame <= size; off += frame) {
    ++out.frames_dropped;
    if (be32(p + off + 4) != 0) ++out.commits_dropped;
  }
}

}  // namespace

WalScan scan_wal(const std::string& bytes) {
  WalScan out;
  if (bytes.size() < kWalHeaderBytes) return out;
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  WalHeader h = read_header(p);
  out.header_valid = h.valid;
  out.page_size = h.page_size;
  size_t frame = kFrameHeaderBytes + static_cast<size_t>(h.page_size);
  out.frames = static_cast<int64_t>((bytes.size() - kWalHeaderBytes) / frame);
  if (!h.valid) {
    count_behind_bad_header(p, bytes.size(), out);
    return out;
  }
  Checksum sum = h.sum;
  for (int64_t i = 0; i < out.frames; ++i) {
    const unsigned char* f = p + kWalHeaderBytes + static_cast<size_t>(i) * frame;
    bool ours = be32(f + 8) == h.salt1 && be32(f + 12) == h.salt2;  // of this generation
    bool commit = be32(f + 4) != 0;
    if (out.first_bad_frame == 0) {
      Checksum next = sum;
      next.add(f, 8, h.big_endian);
      next.add(f + kFrameHeaderBytes, static_cast<size_t>(h.page_size), h.big_endian);
      if (ours && be32(f) != 0 && next.matches(f + 16)) {
        sum = next;
        if (commit) out.frames_replayed = i + 1;
        continue;
      }
      out.first_bad_frame = i + 1;
      if (ours && commit) ++out.commits_dropped;
      continue;
    }
    if (!ours) continue;
    ++out.frames_dropped;
    if (commit) ++out.commits_dropped;
  }
  return out;
}

Result<std::optional<WalScan>> scan_wal_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (errno == ENOENT) return std::optional<WalScan>();
    return errno_error("cannot read " + path);
  }
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return errno_error("cannot read " + path);
  if (bytes.empty()) return std::optional<WalScan>();
  return std::optional<WalScan>(scan_wal(bytes));
}

namespace {

constexpr const char* kJournalFormat = "energyd-marks";
constexpr int kJournalVersion = 1;

nlohmann::json entry_json(const MarkEntry& e) {
  bool start = e.op == MarkEntry::Op::kStart;
  nlohmann::json j = {{"op", start ? "start" : "stop"}, {"run", e.run_id}, {"t_ns", e.t_ns}, {"wall_ns", e.wall_ns}};
  if (start) {
    j["name"] = e.name;
    j["boot_id"] = e.boot_id;
  }
  if (e.tags_json) j["tags"] = *e.tags_json;
  if (e.items) j["items"] = *e.items;
  if (e.start_ns) j["start_ns"] = *e.start_ns;
  if (e.start_wall_ns) j["start_wall_ns"] = *e.start_wall_ns;
  return j;
}

// Throws nlohmann::json exceptions on a malformed line (caught by the reader).
MarkEntry entry_from(const nlohmann::json& j) {
  MarkEntry e;
  std::string op = j.at("op").get<std::string>();
  if (op != "start" && op != "stop") throw std::invalid_argument("unknown op " + op);
  e.op = op == "start" ? MarkEntry::Op::kStart : MarkEntry::Op::kStop;
  e.run_id = j.at("run").get<int64_t>();
  e.t_ns = j.at("t_ns").get<int64_t>();
  e.wall_ns = j.at("wall_ns").get<int64_t>();
  if (e.op == MarkEntry::Op::kStart) {
    e.name = j.at("name").get<std::string>();
    e.boot_id = j.at("boot_id").get<std::string>();
  }
  if (j.contains("tags")) e.tags_json = j.at("tags").get<std::string>();
  if (j.contains("items")) e.items = j.at("items").get<double>();
  if (j.contains("start_ns") && j.contains("start_wall_ns")) {
    e.start_ns = j.at("start_ns").get<int64_t>();
    e.start_wall_ns = j.at("start_wall_ns").get<int64_t>();
  }
  return e;
}

Status write_line(int fd, const std::string& line, const std::string& path) {
  size_t off = 0;
  while (off < line.size()) {
    ssize_t n = ::write(fd, line.data() + off, line.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno_error("cannot append to " + path);
    off += static_cast<size_t>(n);
  }
  return ok_status();
}

Result<std::string> header_store_id(const std::string& line, const std::string& path) {
  auto j = parse_journal(line, kJournalFormat, kJournalVersion, path, "a marks journal");
  if (!j) return j.take_error();
  auto id = j->find("store_id");
  if (id == j->end() || !id->is_string()) {
    return make_error(ErrorCode::kParse, path + ": the header has no string store_id");
  }
  return id->get<std::string>();
}

}  // namespace

Result<std::optional<MarksJournalContents>> MarksJournal::read(const std::string& path) {
  auto text = read_state_file(path);
  if (!text) return text.take_error();
  if (!*text) return std::optional<MarksJournalContents>();
  MarksJournalContents out;
  size_t pos = 0;
  for (int line_no = 1; pos < (*text)->size(); ++line_no) {
    size_t end = (*text)->find('\n', pos);
    if (end == std::string::npos) end = (*text)->size();
    std::string line = (*text)->substr(pos, end - pos);
    pos = end + 1;
    if (line_no == 1) {
      auto id = header_store_id(line, path);
      if (!id) return id.take_error();
      out.store_id = *id;
      continue;
    }
    try {
      out.entries.push_back(entry_from(nlohmann::json::parse(line)));
    } catch (const std::exception&) {
      out.bad_lines.push_back(line_no);
    }
  }
  if (out.store_id.empty()) return make_error(ErrorCode::kParse, path + ": empty marks journal (no header)");
  return std::optional<MarksJournalContents>(std::move(out));
}

Result<MarksJournal> MarksJournal::create(const std::string& path, const std::string& store_id) {
  nlohmann::json header = {{"format", kJournalFormat}, {"version", kJournalVersion}, {"store_id", store_id}};
  auto st = replace_file_durably(path, header.dump() + "\n");
  if (!st) return st.take_error();
  return open_append(path);
}

Result<MarksJournal> MarksJournal::open_append(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW));
  if (!fd) return errno_error("cannot open " + path + " for appending");
  return MarksJournal(std::move(fd), path);
}

Status MarksJournal::append(const MarkEntry& entry) {
  auto st = write_line(fd_.get(), entry_json(entry).dump() + "\n", path_);
  if (!st) return st;
  if (::fdatasync(fd_.get()) != 0) return errno_error("cannot sync " + path_);
  return ok_status();
}

}  // namespace energy
