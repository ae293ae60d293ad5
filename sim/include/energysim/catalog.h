// Catalog: the boards of the reference data file (jetson-boards.yaml),
// resolved per board x L4T generation into BoardSpec values.
//
// Resolution rules (details in sim/ASSUMPTIONS.md): power monitors come only
// from the generation itself; a CPU or GPU value the generation lacks comes
// from the nearest other generation of the same board; thermal zone names
// come from the same SoC and generation first (their spelling changes per
// release); what the reference never states is a simulator assumption and is
// listed in BoardSpec::notes.
//
// load() parses and resolves the whole file once; yaml-cpp exceptions never
// leave this module: they become Result errors naming the board, generation
// and key. A loaded Catalog is immutable and may be shared between threads.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "energy/result.h"
#include "energysim/board_spec.h"

namespace energy::sim {

// "36", "l4t36" or "L4T36" -> 36; kInvalid naming the text otherwise.
Result<int> parse_generation(std::string_view text);

// One board x generation of the file. `spec` holds the error when the entry
// cannot be simulated (e.g. an L4T 39 entry without power monitors).
struct CatalogEntry {
  std::string board_id;
  int l4t = 0;
  Result<BoardSpec> spec;
};

class Catalog {
 public:
  // Reads and resolves `path`. Fails (kNotFound / kParse / kUnsupported) only
  // when the file as a whole is unusable; a broken board becomes an entry error.
  static Result<Catalog> load(const std::string& path);

  // Every board x generation, in file order.
  const std::vector<CatalogEntry>& entries() const { return entries_; }

  // The resolved spec. kNotFound names the unknown board (listing the known
  // ones) or the missing generation (listing the board's generations); an
  // entry that failed to resolve returns its own error.
  Result<BoardSpec> find(std::string_view board_id, int l4t) const;

 private:
  explicit Catalog(std::vector<CatalogEntry> entries) : entries_(std::move(entries)) {}
  std::vector<CatalogEntry> entries_;
};

}  // namespace energy::sim
