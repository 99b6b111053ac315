// The process faults of `isoscope run --nemesis pause,crash` (docs/testing-a-database.md,
// "Faults"): on servers scripts/db.sh started, whose servers.json says where each node's main
// process id is and how to start the node again. A pause stops a node's processes (SIGSTOP)
// for a while and resumes them (SIGCONT); a crash kills them (SIGKILL, every process below the
// main one too, stopped first so none outlives the others) and starts the node again on its data
// folder. Every fault is recorded with its start and end, on the run's clock, and goes into the
// history (docs/formats.md, "faults").
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace isoscope::runner {

struct ServerNode {
  std::string name, address, pid_file, start;
};
struct ServerSet {
  std::string path;  // the servers.json it was read from
  std::string kind, url;
  std::vector<std::pair<std::string, std::string>> settings;  // the settings the script started them with
  std::vector<ServerNode> nodes;
};
// Reads a servers.json; false with error naming the file and what was expected.
bool read_server_set(const std::string& path, ServerSet& out, std::string& error);
// The servers.json scripts/db.sh writes for `kind` ("postgres", "mariadb", ...):
// $ISOSCOPE_DB_DIR/<kind>/servers.json, by default under /tmp/isoscope-db.
std::string default_server_set_path(const std::string& kind);

enum class FaultKind : uint8_t { Kill, Pause, Crash };
const char* fault_kind_name(FaultKind k);  // "kill", "pause", "crash"
struct Fault {
  FaultKind kind = FaultKind::Pause;
  std::string node;              // the node's name; a kill: the connection's server id
  int64_t start_ns = 0, end_ns = 0;  // on the run's clock (as the transactions' times)
  std::string note;              // what did not go as planned (a restart that failed, ...)
};
// The faults as the history's "faults" member: [{"kind": ..., "node": ..., "start": ..., "end": ...}].
std::string faults_json(const std::vector<Fault>& faults);

// The main process id in the node's pid file (its first line), or -1 with error.
int64_t node_pid(const ServerNode& n, std::string& error);
// Sends sig to the node's main process and every process below it (/proc), all stopped first
// (SIGSTOP) when sig is SIGKILL, so that no process of the node runs on while the others die.
bool signal_node(const ServerNode& n, int sig, std::string& error);
// Runs the node's start script and waits for it (it returns once the node accepts connections).
bool start_node(const ServerNode& n, std::string& error);

}  // namespace isoscope::runner
