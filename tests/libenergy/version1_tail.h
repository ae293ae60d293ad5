// A sweep tail left by energyd before the version 2 frames (2026-11-27),
// shared by the tests that decode and replay it.
#pragma once

#include <cstddef>
#include <string>

namespace energy::test {

// Two frames written by the version 1 encoder (energyd before 2026-11-27):
// boot 1, rails 1 and 2, sweeps i = 10..29 with t_ns = wall_ns =
// (1000 + 100 i) ms, rail 0 at 5000 mV and 800 + 10 i mA, rail 1 at 5000 mV
// and 200 mA, power 0 (read from a power file), counters "00000000000000aa"
// started at 1 with VDD_IN at 100 and then 200 uJ.
// The bytes were made by the version 1 encoder from append(10, 20, 100) and
// append(20, 30, 200) of store_tail_test's fixture.
inline const char* const kVersion1TailHex =
    "45544c31af0000008b1410d8010201020110303030303030303030303030303061610201065644445f494e0000000000005940"
    "0a80d0acf30e000000904e880e0000904e90038084af5f0000000014000000008084af5f0000000014000000008084af5f0000"
    "000014000000008084af5f0000000014000000008084af5f0000000014000000008084af5f0000000014000000008084af5f00"
    "00000014000000008084af5f0000000014000000008084af5f00000000140000000045544c31af0000005b5009cd0102010201"
    "10303030303030303030303030303061610201065644445f494e00000000000069400a80f882ad16000000904ed00f0000904e"
    "90038084af5f0000000014000000008084af5f0000000014000000008084af5f0000000014000000008084af5f000000001400"
    "0000008084af5f0000000014000000008084af5f0000000014000000008084af5f0000000014000000008084af5f0000000014"
    "000000008084af5f000000001400000000";

// kVersion1TailHex as bytes.
inline std::string version1_tail_bytes() {
  const std::string hex = kVersion1TailHex;
  std::string out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
    out.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  return out;
}

}  // namespace energy::test
