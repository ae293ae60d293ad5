// The CSV form of export rows (the `export` verb's rows), shared by
// `energyctl export` and `energyctl export RUN`.
//
// Thread-safety: pure functions.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace energy::cli {

// "boot_id,t_ns,wall_time,rail,voltage_mv,current_ma,power_uw,errno\n"
std::string csv_header();
// One line; a failed read has empty readings and its errno. The text
// fields (boot_id, rail) are written with csv_field() (terminal_text.h):
// quoted when they hold a comma or a quote, control characters escaped.
std::string csv_row(const nlohmann::json& row);

// For `export RUN`: when retention has downsampled some of the run's rails
// (a rail of the report whose `resolution` is not "raw"), a sentence saying
// which, and that the rows hold only the raw readings still stored while the
// report's figures come from the buckets; empty when every rail is raw.
std::string downsampled_rows_note(const nlohmann::json& report);

}  // namespace energy::cli
