#pragma once

namespace energy::daemon {
// Parses the command line, sets up logging and runs the daemon.
int main_entry(int argc, char** argv);
}  // namespace energy::daemon
