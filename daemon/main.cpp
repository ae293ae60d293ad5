// energyd: see daemon/src/core/daemon.h. main only turns the command line into a
// configuration and hands over.
#include "entry.h"

int main(int argc, char** argv) { return energy::daemon::main_entry(argc, argv); }
