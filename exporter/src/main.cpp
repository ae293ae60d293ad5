// energyd-exporter: serves energyd's metrics to Prometheus (docs/FLEET.md).
#include "exporter.h"

int main(int argc, char** argv) { return energy::exporter::run_exporter(argc, argv); }
