/* powercut_shim: an LD_PRELOAD library for integration tests that keeps,
 * beside one directory (energyd's state directory), the image a power cut
 * would leave of it: what was made durable, and nothing else.
 *
 * Control (read once, at the first call that needs them):
 *   $ENERGYD_POWERCUT_DIR     the watched directory (absolute, canonical,
 *                             existing before the process starts);
 *   $ENERGYD_POWERCUT_SHADOW  where the durable images are kept (absolute,
 *                             outside the watched directory, existing).
 * Without both variables the shim changes nothing.
 *
 * The model (a journaling file system, as ext4 with data=ordered):
 *   - fsync() or fdatasync() of a file directly in the watched directory
 *     makes its current content durable: the shim copies it to
 *     SHADOW/<name> (written aside and renamed, so the image is always
 *     whole). A file's first sync makes its name durable too (ext4 commits
 *     the new directory entry with the inode; SQLite relies on this for the
 *     database file).
 *   - rename() and unlink() in the watched directory become durable at the
 *     next fsync() or fdatasync() of the directory itself; until then they
 *     are pending, in memory, and lost with the process. A rename of a file
 *     that never had a durable image leaves an empty file (its data blocks
 *     were never written).
 *   - Writes, truncations and creations never synced are not in the image.
 * After SIGKILL the test replaces the directory's contents with the images:
 * that is the directory after a power cut at that moment.
 * Not modelled: subdirectories (their files are ignored), renameat() /
 * unlinkat() / remove() (energyd and SQLite use rename() and unlink()),
 * O_SYNC / O_DSYNC writes and syncfs() (not used), and a file synced by
 * descriptor after a rename whose directory was not synced yet (its image
 * goes to the new name at once).
 * Names starting with ".pc-" in SHADOW are the shim's own temporaries.
 * Written in C: glibc declares these functions noexcept in C++. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*sync_fn)(int);
typedef int (*rename_fn)(const char*, const char*);
typedef int (*unlink_fn)(const char*);

enum op_kind { OP_RENAME, OP_UNLINK };

struct pending_op {
  enum op_kind kind;
  char from[NAME_MAX + 1];
  char to[NAME_MAX + 1];
};

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static char g_dir[PATH_MAX];
static char g_shadow[PATH_MAX];
static int g_active;
static struct pending_op* g_ops;
static size_t g_nops, g_capops;
static unsigned long g_tmp_seq;

static rename_fn real_rename(void) {
  static rename_fn next;
  if (next == NULL) next = (rename_fn)dlsym(RTLD_NEXT, "rename");
  return next;
}

static unlink_fn real_unlink(void) {
  static unlink_fn next;
  if (next == NULL) next = (unlink_fn)dlsym(RTLD_NEXT, "unlink");
  return next;
}

static void init(void) {
  const char* dir = getenv("ENERGYD_POWERCUT_DIR");
  const char* shadow = getenv("ENERGYD_POWERCUT_SHADOW");
  if (dir == NULL || shadow == NULL) return;
  if (strlen(dir) >= sizeof g_dir || strlen(shadow) >= sizeof g_shadow) return;
  strcpy(g_dir, dir);
  strcpy(g_shadow, shadow);
  g_active = 1;
}

static int active(void) {
  pthread_once(&g_once, init);
  return g_active;
}

/* The name of `path` when it is directly in the watched directory, else NULL.
 * `path` is absolute. */
static const char* name_in_dir(const char* path) {
  size_t n = strlen(g_dir);
  if (strncmp(path, g_dir, n) != 0 || path[n] != '/') return NULL;
  const char* name = path + n + 1;
  if (*name == '\0' || strchr(name, '/') != NULL || strlen(name) > NAME_MAX) return NULL;
  return name;
}

/* `path` made absolute against the working directory, into `out`. */
static int absolute(const char* path, char* out, size_t size) {
  if (path[0] == '/') return snprintf(out, size, "%s", path) < (int)size ? 0 : -1;
  char cwd[PATH_MAX];
  if (getcwd(cwd, sizeof cwd) == NULL) return -1;
  return snprintf(out, size, "%s/%s", cwd, path) < (int)size ? 0 : -1;
}

static void shadow_path(const char* name, char* out, size_t size) { snprintf(out, size, "%s/%s", g_shadow, name); }

static int copy_fd(int in, int out) {
  char buf[65536];
  for (;;) {
    ssize_t n = read(in, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return n == 0 ? 0 : -1;
    for (ssize_t off = 0; off < n;) {
      ssize_t w = write(out, buf + off, (size_t)(n - off));
      if (w < 0 && errno == EINTR) continue;
      if (w < 0) return -1;
      off += w;
    }
  }
}

/* Copies the file open as `fd` to SHADOW/<name>, atomically. Caller holds g_mu. */
static void snapshot(int fd, const char* name) {
  char proc[64], tmp[PATH_MAX], target[PATH_MAX];
  snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
  snprintf(tmp, sizeof tmp, "%s/.pc-%lu", g_shadow, ++g_tmp_seq);
  shadow_path(name, target, sizeof target);
  int in = open(proc, O_RDONLY | O_CLOEXEC);
  if (in < 0) return;
  int out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  int ok = out >= 0 && copy_fd(in, out) == 0;
  close(in);
  if (out >= 0) close(out);
  if (ok && real_rename()(tmp, target) == 0) return;
  real_unlink()(tmp);
}

static void make_empty(const char* target) {
  int fd = open(target, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd >= 0) close(fd);
}

/* The pending renames and unlinks, applied to the images in order. Caller holds g_mu. */
static void apply_pending(void) {
  for (size_t i = 0; i < g_nops; ++i) {
    char from[PATH_MAX], to[PATH_MAX];
    shadow_path(g_ops[i].from, from, sizeof from);
    if (g_ops[i].kind == OP_UNLINK) {
      real_unlink()(from);
      continue;
    }
    shadow_path(g_ops[i].to, to, sizeof to);
    if (real_rename()(from, to) != 0) make_empty(to);
  }
  g_nops = 0;
}

static void add_pending(enum op_kind kind, const char* from, const char* to) {
  pthread_mutex_lock(&g_mu);
  if (g_nops == g_capops) {
    size_t cap = g_capops == 0 ? 64 : g_capops * 2;
    struct pending_op* grown = realloc(g_ops, cap * sizeof *grown);
    if (grown == NULL) abort(); /* the image would silently be wrong */
    g_ops = grown;
    g_capops = cap;
  }
  g_ops[g_nops].kind = kind;
  snprintf(g_ops[g_nops].from, sizeof g_ops[g_nops].from, "%s", from);
  snprintf(g_ops[g_nops].to, sizeof g_ops[g_nops].to, "%s", to != NULL ? to : "");
  ++g_nops;
  pthread_mutex_unlock(&g_mu);
}

/* After a successful sync of `fd`: its image, or the directory's pending operations. */
static void synced(int fd) {
  if (!active()) return;
  char proc[64], path[PATH_MAX];
  snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
  ssize_t n = readlink(proc, path, sizeof path - 1);
  if (n <= 0) return;
  path[n] = '\0';
  struct stat st;
  if (fstat(fd, &st) != 0) return;
  pthread_mutex_lock(&g_mu);
  if (S_ISDIR(st.st_mode) && strcmp(path, g_dir) == 0) apply_pending();
  const char* name = S_ISREG(st.st_mode) && st.st_nlink > 0 ? name_in_dir(path) : NULL;
  if (name != NULL) snapshot(fd, name);
  pthread_mutex_unlock(&g_mu);
}

int fsync(int fd) {
  static sync_fn next;
  if (next == NULL) next = (sync_fn)dlsym(RTLD_NEXT, "fsync");
  int r = next(fd);
  if (r == 0) synced(fd);
  return r;
}

int fdatasync(int fd) {
  static sync_fn next;
  if (next == NULL) next = (sync_fn)dlsym(RTLD_NEXT, "fdatasync");
  int r = next(fd);
  if (r == 0) synced(fd);
  return r;
}

int rename(const char* from, const char* to) {
  int r = real_rename()(from, to);
  if (r != 0 || !active()) return r;
  int saved = errno;
  char a[PATH_MAX], b[PATH_MAX];
  if (absolute(from, a, sizeof a) == 0 && absolute(to, b, sizeof b) == 0) {
    const char* na = name_in_dir(a);
    const char* nb = name_in_dir(b);
    if (na != NULL && nb != NULL) add_pending(OP_RENAME, na, nb);
  }
  errno = saved;
  return r;
}

int unlink(const char* path) {
  int r = real_unlink()(path);
  if (r != 0 || !active()) return r;
  int saved = errno;
  char a[PATH_MAX];
  const char* name = absolute(path, a, sizeof a) == 0 ? name_in_dir(a) : NULL;
  if (name != NULL) add_pending(OP_UNLINK, name, NULL);
  errno = saved;
  return r;
}
