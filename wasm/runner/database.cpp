#include <cctype>
#include <charconv>
#include <cstdlib>

#include "runner/backends.h"
#include "runner/client_libraries.h"

namespace isoscope::runner {

const char* db_kind_name(DbKind k) {
  switch (k) {
    case DbKind::PostgreSQL: return "PostgreSQL";
    case DbKind::MariaDB: return "MariaDB";
    case DbKind::SQLite: return "SQLite";
  }
  return "?";
}

const char* isolation_name(Isolation i) {
  switch (i) {
    case Isolation::ReadUncommitted: return "read-uncommitted";
    case Isolation::ReadCommitted: return "read-committed";
    case Isolation::RepeatableRead: return "repeatable-read";
    case Isolation::Serializable: return "serializable";
  }
  return "?";
}

bool parse_isolation(std::string_view s, Isolation& out) {
  for (Isolation i : {Isolation::ReadUncommitted, Isolation::ReadCommitted, Isolation::RepeatableRead,
                      Isolation::Serializable})
    if (s == isolation_name(i)) {
      out = i;
      return true;
    }
  return false;
}

namespace {

// %XX escapes of a URL part.
std::string url_decode(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    int v = 0;
    if (s[i] == '%' && i + 2 < s.size() &&
        std::from_chars(s.data() + i + 1, s.data() + i + 3, v, 16).ptr == s.data() + i + 3) {
      out.push_back(static_cast<char>(v));
      i += 2;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

}  // namespace

bool parse_target(std::string_view url, Target& out, std::string& error) {
  out = Target{};
  if (url.rfind("sqlite:", 0) == 0) {
    out.kind = DbKind::SQLite;
    out.path = std::string(url.substr(7));
    if (out.path.rfind("//", 0) == 0) out.path = out.path.substr(2);
    if (out.path.empty()) {
      error = "sqlite: needs a file path (sqlite:PATH)";
      return false;
    }
    out.display = "sqlite:" + out.path;
    return true;
  }
  const size_t scheme_end = url.find("://");
  const std::string scheme(scheme_end == std::string_view::npos ? std::string_view() : url.substr(0, scheme_end));
  if (scheme == "postgresql" || scheme == "postgres") {
    out.kind = DbKind::PostgreSQL;
    out.port = 5432;
  } else if (scheme == "mariadb" || scheme == "mysql") {
    out.kind = DbKind::MariaDB;
    out.port = 3306;
  } else {
    error = "'" + std::string(url) +
            "' is not a target: expected postgresql://USER@HOST:PORT/DB, mariadb://USER@HOST:PORT/DB, "
            "mysql://USER@HOST:PORT/DB or sqlite:PATH";
    return false;
  }
  std::string_view rest = url.substr(scheme_end + 3);
  std::string_view query;
  if (const size_t q = rest.find('?'); q != std::string_view::npos) {
    query = rest.substr(q + 1);
    rest = rest.substr(0, q);
  }
  const size_t slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  out.database = slash == std::string_view::npos ? "" : url_decode(rest.substr(slash + 1));
  if (const size_t at = authority.rfind('@'); at != std::string_view::npos) {
    const std::string_view userinfo = authority.substr(0, at);
    authority = authority.substr(at + 1);
    const size_t colon = userinfo.find(':');
    out.user = url_decode(userinfo.substr(0, colon));
    if (colon != std::string_view::npos) out.password = url_decode(userinfo.substr(colon + 1));
  }
  const size_t colon = authority.rfind(':');
  out.host = std::string(authority.substr(0, colon));
  if (colon != std::string_view::npos) {
    const std::string_view port = authority.substr(colon + 1);
    int p = 0;
    if (std::from_chars(port.data(), port.data() + port.size(), p).ptr != port.data() + port.size() || p <= 0 ||
        p > 65535) {
      error = std::string(url.substr(0, scheme_end)) + " target: '" + std::string(port) + "' is not a port number";
      return false;
    }
    out.port = p;
  }
  if (out.host.empty()) out.host = "127.0.0.1";
  if (out.database.empty()) {
    error = std::string(url.substr(0, scheme_end)) + " target needs a database name: " + scheme + "://USER@HOST:PORT/DB";
    return false;
  }
  if (out.password.empty()) {
    const char* env = std::getenv(out.kind == DbKind::PostgreSQL ? "PGPASSWORD" : "MYSQL_PWD");
    if (env) out.password = env;
  }
  while (!query.empty()) {
    const size_t amp = query.find('&');
    const std::string_view kv = query.substr(0, amp);
    const size_t eq = kv.find('=');
    if (eq == std::string_view::npos || eq == 0) {
      error = "target parameter '" + std::string(kv) + "' is not NAME=VALUE";
      return false;
    }
    const std::string name = url_decode(kv.substr(0, eq));
    for (char c : name)
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) {
        error = "target parameter '" + name + "' is not a variable name";
        return false;
      }
    out.session_vars.emplace_back(name, url_decode(kv.substr(eq + 1)));
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
  }
  out.display = scheme + "://" + (out.user.empty() ? "" : out.user + "@") + out.host + ":" + std::to_string(out.port) +
                "/" + out.database;
  return true;
}

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

std::unique_ptr<Database> open_database(const Target& t, Isolation iso, std::string& error) {
  if (!load_client_library(t.kind, error)) return nullptr;
  switch (t.kind) {
    case DbKind::PostgreSQL: return open_postgres(t, iso, error);
    case DbKind::MariaDB: return open_mariadb(t, iso, error);
    case DbKind::SQLite: return open_sqlite(t, iso, error);
  }
  return nullptr;
}

}  // namespace isoscope::runner
