// energyd-sim: hands argv and ENERGYD_SIM_DATA to the simulator library.
#include <cstdlib>
#include <iostream>

#include "energysim/cli.h"

int main(int argc, char** argv) {
  const char* data = std::getenv("ENERGYD_SIM_DATA");
  energy::sim::CliEnv env{data != nullptr ? std::optional<std::string>(data) : std::nullopt};
  return energy::sim::run_cli(std::vector<std::string>(argv + 1, argv + argc), env, std::cout, std::cerr);
}
