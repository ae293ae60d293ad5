#include "collector.h"

#include "energy/client.h"

namespace energy::exporter {

namespace {

// A verb's result, or null when it failed (its metrics are left out).
nlohmann::json optional_call(Client& c, const char* verb, const nlohmann::json& args = nlohmann::json::object()) {
  auto r = c.call(verb, args);
  return r ? std::move(r).value() : nlohmann::json();
}

}  // namespace

EnergydAnswers collect(const std::string& socket_path, std::chrono::milliseconds timeout) {
  auto start = std::chrono::steady_clock::now();
  EnergydAnswers a;
  auto client = Client::connect(socket_path, ClientTimeouts{timeout, timeout});
  if (!client) {
    a.error = client.error().describe();
  } else if (auto status = client->call("status"); !status || !status->is_object()) {
    a.error = status ? "energyd's status is not an object" : status.error().describe();
  } else {
    a.up = true;
    a.status = std::move(status).value();
    a.counters = optional_call(*client, "energy.counters");
    a.clocks = optional_call(*client, "clocks");
    a.leases = optional_call(*client, "clocks.leases");
    a.stopped_runs = optional_call(*client, "runs.list", {{"state", "stopped"}, {"limit", kMaxRunNames}});
  }
  a.scrape_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return a;
}

}  // namespace energy::exporter
