#include "runner/nemesis.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>
#include <unordered_map>

#include "simdjson.h"
#include "util/json.h"

namespace isoscope::runner {

const char* fault_kind_name(FaultKind k) {
  switch (k) {
    case FaultKind::Kill: return "kill";
    case FaultKind::Pause: return "pause";
    case FaultKind::Crash: return "crash";
  }
  return "?";
}

std::string default_server_set_path(const std::string& kind) {
  const char* base = std::getenv("ISOSCOPE_DB_DIR");
  std::string path = base && *base ? base : "/tmp/isoscope-db";
  path += "/";
  path += kind;
  path += "/servers.json";
  return path;
}

bool read_server_set(const std::string& path, ServerSet& out, std::string& error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = path + ": cannot read it: " + std::strerror(errno);
    return false;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  const auto bad = [&](const std::string& what) {
    error = path + ": expected " + what + " (scripts/db.sh writes this file)";
    return false;
  };
  if (parser.parse(text).get(doc)) return bad("a JSON object");
  out = {};
  out.path = path;
  std::string_view s;
  if (doc["kind"].get(s)) return bad("a \"kind\" string");
  out.kind = s;
  if (doc["url"].get(s)) return bad("a \"url\" string");
  out.url = s;
  simdjson::dom::object settings;
  if (!doc["settings"].get(settings))
    for (auto [k, v] : settings) {
      std::string_view value;
      out.settings.push_back({std::string(k), v.get(value) ? std::string(simdjson::to_string(v)) : std::string(value)});
    }
  simdjson::dom::array nodes;
  if (doc["nodes"].get(nodes) || nodes.size() == 0) return bad("a \"nodes\" array of at least one node");
  for (simdjson::dom::element n : nodes) {
    ServerNode node;
    std::string_view name, address, pid_file, start;
    if (n["name"].get(name) || n["address"].get(address) || n["pid_file"].get(pid_file) || n["start"].get(start))
      return bad("each node to have \"name\", \"address\", \"pid_file\" and \"start\" strings");
    out.nodes.push_back({std::string(name), std::string(address), std::string(pid_file), std::string(start)});
  }
  return true;
}

std::string faults_json(const std::vector<Fault>& faults) {
  std::string out = "[";
  for (size_t i = 0; i < faults.size(); ++i) {
    const Fault& f = faults[i];
    out += i ? ",\n  {" : "\n  {";
    out += "\"kind\": " + json_quote(fault_kind_name(f.kind));
    out += ", \"node\": " + json_quote(f.node);
    out += ", \"start\": " + std::to_string(f.start_ns);
    out += ", \"end\": " + std::to_string(f.end_ns);
    if (!f.note.empty()) out += ", \"note\": " + json_quote(f.note);
    out += "}";
  }
  out += faults.empty() ? "]" : "\n ]";
  return out;
}

int64_t node_pid(const ServerNode& n, std::string& error) {
  std::ifstream in(n.pid_file);
  long long pid = -1;
  if (!(in >> pid) || pid <= 1) {
    error = "the pid file of " + n.name + " (" + n.pid_file + ") holds no process id: is the server running?";
    return -1;
  }
  if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) {
    error = "the process of " + n.name + " (pid " + std::to_string(pid) + ", from " + n.pid_file + ") is not running";
    return -1;
  }
  return pid;
}

namespace {

// pid and every process below it, parents first (from /proc/*/stat's parent ids).
std::vector<pid_t> process_tree(pid_t root) {
  std::unordered_multimap<pid_t, pid_t> children;
  if (DIR* d = ::opendir("/proc")) {
    while (dirent* e = ::readdir(d)) {
      char* end = nullptr;
      const long pid = std::strtol(e->d_name, &end, 10);
      if (!end || *end || pid <= 0) continue;
      std::ifstream stat(std::string("/proc/") + e->d_name + "/stat");
      std::string line;
      if (!std::getline(stat, line)) continue;
      const size_t close = line.rfind(')');  // the command name may hold spaces and parentheses
      if (close == std::string::npos) continue;
      std::istringstream rest(line.substr(close + 2));
      char state;
      long ppid = 0;
      if (rest >> state >> ppid) children.insert({static_cast<pid_t>(ppid), static_cast<pid_t>(pid)});
    }
    ::closedir(d);
  }
  std::vector<pid_t> tree{root};
  for (size_t i = 0; i < tree.size(); ++i) {
    auto [b, e] = children.equal_range(tree[i]);
    for (auto it = b; it != e; ++it) tree.push_back(it->second);
  }
  return tree;
}

}  // namespace

bool signal_node(const ServerNode& n, int sig, std::string& error) {
  const int64_t pid = node_pid(n, error);
  if (pid < 0) return false;
  if (static_cast<pid_t>(pid) == ::getpid()) {
    error = "the pid file of " + n.name + " names this process";
    return false;
  }
  std::vector<pid_t> tree = process_tree(static_cast<pid_t>(pid));
  if (sig == SIGKILL) {
    // Stopped first, parents first, then the tree again (a process forked meanwhile), then killed.
    for (pid_t p : tree) ::kill(p, SIGSTOP);
    tree = process_tree(static_cast<pid_t>(pid));
    for (pid_t p : tree) ::kill(p, SIGSTOP);
  }
  if (::kill(static_cast<pid_t>(pid), sig) != 0) {
    error = "cannot signal " + n.name + " (pid " + std::to_string(pid) + "): " + std::strerror(errno);
    return false;
  }
  for (size_t i = 1; i < tree.size(); ++i) ::kill(tree[i], sig);
  if (sig == SIGKILL) {
    // Until every one is gone (init reaps them: they are not this process's children).
    for (int i = 0; i < 500; ++i) {
      bool any = false;
      for (pid_t p : tree) any |= ::kill(p, 0) == 0;
      if (!any) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  return true;
}

bool start_node(const ServerNode& n, std::string& error) {
  // What the script says goes to a file of its own, quoted when it fails (a restart after a
  // crash says things such as "another server might be running", which are no one's business).
  char out_path[] = "/tmp/isoscope-start-XXXXXX";
  const int out_fd = ::mkostemp(out_path, O_CLOEXEC);
  if (out_fd >= 0) ::unlink(out_path);
  const pid_t child = ::fork();
  if (child < 0) {
    error = std::string("cannot start a process: ") + std::strerror(errno);
    if (out_fd >= 0) ::close(out_fd);
    return false;
  }
  if (child == 0) {
    ::setsid();  // the server it starts is no part of this process's group (a Ctrl-C of the run)
    const int null_fd = ::open("/dev/null", O_RDWR);
    if (null_fd >= 0) ::dup2(null_fd, 0);
    if (out_fd >= 0) ::dup2(out_fd, 1), ::dup2(out_fd, 2);
    ::execl("/bin/bash", "bash", n.start.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  std::string said;
  if (out_fd >= 0) {
    char buf[4096];
    ssize_t got;
    ::lseek(out_fd, 0, SEEK_SET);
    while ((got = ::read(out_fd, buf, sizeof buf)) > 0) said.append(buf, static_cast<size_t>(got));
    ::close(out_fd);
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    error = "the start script of " + n.name + " (" + n.start + ") failed" +
            (WIFEXITED(status) ? " with status " + std::to_string(WEXITSTATUS(status)) : std::string()) +
            (said.empty() ? "" : ": " + said.substr(said.size() > 400 ? said.size() - 400 : 0));
    return false;
  }
  return true;
}

}  // namespace isoscope::runner
