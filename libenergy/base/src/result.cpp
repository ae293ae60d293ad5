#include "energy/result.h"

#include <cstring>

namespace energy {

const char* error_code_name(ErrorCode code) {
  switch (code) {
    case ErrorCode::kIo: return "io";
    case ErrorCode::kParse: return "parse";
    case ErrorCode::kNotFound: return "not_found";
    case ErrorCode::kInvalid: return "invalid";
    case ErrorCode::kUnsupported: return "unsupported";
    case ErrorCode::kProtocol: return "protocol";
    case ErrorCode::kState: return "state";
    case ErrorCode::kDenied: return "denied";
    case ErrorCode::kStorage: return "storage";
    case ErrorCode::kCorrupt: return "corrupt";
    case ErrorCode::kTimeout: return "timeout";
    case ErrorCode::kInternal: return "internal";
  }
  return "unknown";
}

std::string Error::describe() const {
  if (sys_errno == 0) return message;
  return message + " (" + std::strerror(sys_errno) + ")";
}

}  // namespace energy
