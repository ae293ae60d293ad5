// Result<T>: the return type of every fallible libenergy function.
//
// A Result holds either a value or an Error. Errors carry a category, the
// errno that caused them (0 when none) and a message that names the file, key
// or field at fault. Library code never throws across its API and never logs;
// the caller decides what to do and logs once.
//
// Thread-safety: a Result is a plain value; distinct objects may be used from
// distinct threads.
#pragma once

#include <cerrno>
#include <string>
#include <utility>
#include <variant>

namespace energy {

enum class ErrorCode {
  kIo,           // a read, write or syscall failed; sys_errno says which
  kParse,        // content was present but malformed
  kNotFound,     // a file, rail, run or key does not exist
  kInvalid,      // an argument or configuration value is out of its domain
  kUnsupported,  // the request is valid but this board or build cannot do it
  kProtocol,     // a socket peer broke the wire protocol
  kState,        // the request conflicts with the current state (e.g. run already stopped)
  kDenied,       // the caller lacks the privilege for the request
  kStorage,      // the database refused an operation
  kCorrupt,      // the database file is damaged (SQLITE_CORRUPT, SQLITE_NOTADB, failed integrity check)
  kTimeout,      // an operation did not finish before its deadline
  kInternal,     // energyd hit a fault of its own (a bug); the request was not carried out
};

// Stable lower-case name of a code, used on the wire and in messages.
const char* error_code_name(ErrorCode code);

struct Error {
  ErrorCode code = ErrorCode::kIo;
  int sys_errno = 0;
  std::string message;

  // "message (strerror)" when sys_errno is set, otherwise the message.
  std::string describe() const;
};

inline Error make_error(ErrorCode code, std::string message, int sys_errno = 0) {
  return Error{code, sys_errno, std::move(message)};
}
// An I/O error from the current errno, naming what was being done.
inline Error errno_error(std::string what, int sys_errno = errno) {
  return Error{ErrorCode::kIo, sys_errno, std::move(what)};
}

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}      // NOLINT(google-explicit-constructor)
  Result(Error error) : v_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  const Error& error() const { return std::get<1>(v_); }
  Error&& take_error() { return std::get<1>(std::move(v_)); }

  template <typename U>
  T value_or(U&& fallback) const& {
    return ok() ? value() : static_cast<T>(std::forward<U>(fallback));
  }

 private:
  std::variant<T, Error> v_;
};

// Result of an operation that produces no value.
struct Ok {};
using Status = Result<Ok>;
inline Status ok_status() { return Ok{}; }

}  // namespace energy
