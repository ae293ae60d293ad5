// energyctl: see cli/src/main_entry.cpp.
namespace energy::cli {
int main_entry(int argc, char** argv);
}

int main(int argc, char** argv) { return energy::cli::main_entry(argc, argv); }
