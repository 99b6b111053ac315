// What the database implementations share (owner marks of a run's tables, list values as
// text) and the factory that opens a target through the implementation of its kind, its client
// library loaded first (client_libraries.h).
#include <unistd.h>

#include <cctype>
#include <charconv>
#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

#include "runner/backends.h"
#include "runner/client_libraries.h"

namespace isoscope::runner {

bool parse_list_text(std::string_view text, std::vector<int64_t>& out) {
  out.clear();
  const char* p = text.data();
  const char* end = p + text.size();
  while (p < end) {
    if (*p == ' ') {
      ++p;
      continue;
    }
    int64_t v;
    const auto r = std::from_chars(p, end, v);
    if (r.ec != std::errc()) return false;
    out.push_back(v);
    p = r.ptr;
  }
  return true;
}

std::string add_lists_sql(const char* insert_into, const std::string& table, const std::vector<uint32_t>& keys, const char* tail) {
  std::string sql = std::string(insert_into) + " " + table + " (k, v) VALUES ";
  for (size_t i = 0; i < keys.size(); ++i) sql += (i ? ", (" : "(") + std::to_string(keys[i]) + ", '')";
  return sql + tail;
}

namespace {

std::string read_small_file(const char* path) {
  std::FILE* f = std::fopen(path, "rb");
  if (!f) return "";
  char buf[1024];
  const size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  std::string s(buf, n);
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

// Field 22 of /proc/PID/stat: the process's start, in clock ticks since boot ("" when gone).
std::string process_start(const std::string& pid) {
  const std::string stat = read_small_file(("/proc/" + pid + "/stat").c_str());
  const size_t paren = stat.rfind(')');  // the command name may hold spaces and parentheses
  if (paren == std::string::npos) return "";
  size_t pos = paren + 2;
  for (int field = 3; field < 22 && pos < stat.size(); ++field) {
    pos = stat.find(' ', pos);
    if (pos == std::string::npos) return "";
    ++pos;
  }
  return stat.substr(pos, stat.find(' ', pos) - pos);
}

std::string mark_field(std::string_view mark, std::string_view name) {
  std::string key = " ", padded = " ";
  key.append(name.data(), name.size());
  key.push_back('=');
  padded.append(mark.data(), mark.size());
  const size_t at = padded.find(key);
  if (at == std::string::npos) return "";
  const size_t b = at + key.size();
  return padded.substr(b, padded.find(' ', b) - b);
}

// The pid namespace's inode ("4026531836"): pids of two namespaces are not comparable.
std::string pid_namespace() {
  char buf[64] = {};
  const ssize_t n = ::readlink("/proc/self/ns/pid", buf, sizeof buf - 1);
  if (n <= 0) return "?";
  std::string s(buf, static_cast<size_t>(n));
  const size_t b = s.find('['), e = s.find(']');
  return b == std::string::npos || e == std::string::npos || e <= b ? "?" : s.substr(b + 1, e - b - 1);
}

std::string host_name() {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) return "?";
  std::string h = host;
  for (char& c : h)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_')) c = '_';
  return h.empty() ? "?" : h;
}

}  // namespace

std::string owner_mark() {
  std::string boot = read_small_file("/proc/sys/kernel/random/boot_id");
  for (char& c : boot)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-')) c = '_';
  const std::time_t t = std::time(nullptr);
  char when[32];
  std::strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  const std::string start = process_start("self");
  return "host=" + host_name() + " boot=" + (boot.empty() ? "?" : boot) + " pidns=" + pid_namespace() +
         " pid=" + std::to_string(static_cast<long>(::getpid())) + " start=" + (start.empty() ? "?" : start) +
         " created=" + when;
}

Owner owner_state(std::string_view mark) {
  const std::string host = mark_field(mark, "host"), boot = mark_field(mark, "boot"), pid = mark_field(mark, "pid"),
                    start = mark_field(mark, "start");
  if (host.empty() || pid.empty() || host != host_name() || boot == "?" || start == "?") return Owner::Unknown;
  // /proc shows the pids of this process's namespace only when it is that namespace's.
  const std::string pidns = mark_field(mark, "pidns");
  if (pidns == "?" || pidns != pid_namespace() || read_small_file("/proc/self/stat").rfind(std::to_string(::getpid()) + " ", 0) != 0)
    return Owner::Unknown;
  std::string my_boot = read_small_file("/proc/sys/kernel/random/boot_id");
  for (char& c : my_boot)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-')) c = '_';
  if (boot != my_boot) return Owner::Gone;  // the machine restarted since: no process of then runs
  if (pid.find_first_not_of("0123456789") != std::string::npos) return Owner::Unknown;
  // The same pid and start time: the process (a pid reused by another process starts later).
  return process_start(pid) == start ? Owner::Running : Owner::Gone;
}

std::string owner_note(std::string_view mark) {
  const std::string created = mark_field(mark, "created"), pid = mark_field(mark, "pid"), host = mark_field(mark, "host");
  if (created.empty() && pid.empty()) return "";
  return "created " + created + " by pid " + pid + " on host " + host;
}

#ifndef ISOSCOPE_HAVE_LIBPQ
std::unique_ptr<Database> open_postgres(const Target&, Isolation, std::string& error) {
  error = "this isoscope was built without PostgreSQL support (libpq was not found at build time: install libpq-dev and rebuild)";
  return nullptr;
}
#endif
#ifndef ISOSCOPE_HAVE_MARIADB
std::unique_ptr<Database> open_mariadb(const Target&, Isolation, std::string& error) {
  error = "this isoscope was built without MariaDB/MySQL support (MariaDB Connector/C was not found at build time: install libmariadb-dev and rebuild)";
  return nullptr;
}
#endif
#ifndef ISOSCOPE_HAVE_SQLITE
std::unique_ptr<Database> open_sqlite(const Target&, Isolation, std::string& error) {
  error = "this isoscope was built without SQLite support (install libsqlite3-dev and rebuild)";
  return nullptr;
}
#endif

#if !defined(ISOSCOPE_HAVE_CURL) || !defined(ISOSCOPE_HAVE_NGHTTP2)
std::unique_ptr<Database> open_etcd(const Target&, Isolation, std::string& error) {
  error = "this isoscope was built without etcd support (libcurl or nghttp2 was not found at build time: install libcurl4-openssl-dev and libnghttp2-dev and rebuild)";
  return nullptr;
}
#endif
#ifndef ISOSCOPE_HAVE_HIREDIS
std::unique_ptr<Database> open_redis(const Target&, Isolation, std::string& error) {
  error = "this isoscope was built without Redis support (hiredis was not found at build time: install libhiredis-dev and rebuild)";
  return nullptr;
}
#endif

std::unique_ptr<Database> open_database(const Target& t, Isolation iso, std::string& error) {
  if (!load_client_library(t.kind, error)) return nullptr;
  switch (t.kind) {
    case DbKind::PostgreSQL: return open_postgres(t, iso, error);
    case DbKind::MariaDB: return open_mariadb(t, iso, error);
    case DbKind::SQLite: return open_sqlite(t, iso, error);
    case DbKind::Etcd: return open_etcd(t, iso, error);
    case DbKind::Redis: return open_redis(t, iso, error);
  }
  return nullptr;
}

}  // namespace isoscope::runner
