// What every target shares: isolation levels, the targets' URLs (and keeping their passwords out
// of every message), the run's table names.
#include <sys/random.h>

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <string>

#include "runner/database.h"

namespace isoscope::runner {

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
    unsigned v = 0;
    if (s[i] == '%' && i + 3 <= s.size() &&
        std::from_chars(s.data() + i + 1, s.data() + i + 3, v, 16).ptr == s.data() + i + 3) {
      out.push_back(static_cast<char>(v));
      i += 2;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

// The characters a URL part may hold as they are; the others are %XX-escaped.
std::string url_encode(std::string_view s) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
      out.push_back(ch);
    } else {
      out.push_back('%');
      out.push_back(hex[c >> 4]);
      out.push_back(hex[c & 15]);
    }
  }
  return out;
}

// libpq's connection keywords (PostgreSQL 15 to 17): as query parameters of a postgresql:// URL
// they configure the connection, as in libpq's own URIs; any other name is a session variable.
bool libpq_keyword(std::string_view name) {
  static const char* const keywords[] = {
      "host", "hostaddr", "port", "dbname", "user", "password", "passfile", "channel_binding", "connect_timeout",
      "client_encoding", "options", "application_name", "fallback_application_name", "keepalives", "keepalives_idle",
      "keepalives_interval", "keepalives_count", "tcp_user_timeout", "replication", "gssencmode", "sslmode",
      "requiressl", "sslcompression", "sslcert", "sslkey", "sslpassword", "sslcertmode", "sslrootcert", "sslcrl",
      "sslcrldir", "sslsni", "requirepeer", "require_auth", "ssl_min_protocol_version", "ssl_max_protocol_version",
      "krbsrvname", "gsslib", "gssdelegation", "service", "target_session_attrs", "load_balance_hosts", "sslnegotiation"};
  for (const char* k : keywords)
    if (name == k) return true;
  return false;
}

bool is_identifier(std::string_view name) {
  if (name.empty() || name.size() > 64 || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

}  // namespace

std::pair<size_t, size_t> password_span(std::string_view url) {
  // As parse_target reads it: the user information begins after "//" (or at the start when
  // there is none) and ends at the last '@' before the query (a password may hold an unescaped
  // '@' or '/'); the password follows its first ':'.
  const size_t slashes = url.find("//");
  const size_t begin = slashes == std::string_view::npos ? 0 : slashes + 2;
  const size_t query = url.find_first_of("?#", begin);
  const size_t at = url.substr(0, query).rfind('@');
  if (at == std::string_view::npos || at < begin) return {0, 0};
  const size_t colon = url.substr(0, at).find(':', begin);
  if (colon == std::string_view::npos) return {0, 0};
  return {colon + 1, at};
}

namespace {

// The values of password=... and sslpassword=... (libpq's keywords, MariaDB's ?password=) in s:
// overwritten with '*' (the same length: the command line's copy is overwritten in place).
void mask_password_params(std::string& s) {
  for (size_t at = s.find("password="); at != std::string::npos; at = s.find("password=", at + 1)) {
    const bool ssl = at >= 3 && s.compare(at - 3, 3, "ssl") == 0;
    if (at > 0 && std::isalnum(static_cast<unsigned char>(s[at - 1])) && !ssl) continue;
    for (size_t i = at + 9; i < s.size() && s[i] != '&' && s[i] != ' ' && s[i] != '\'' && s[i] != '"'; ++i) s[i] = '*';
  }
}

}  // namespace

void mask_password_in_place(char* arg) {
  std::string s = arg;
  const auto [b, e] = password_span(s);
  for (size_t k = b; k < e; ++k) s[k] = 'x';
  mask_password_params(s);
  std::memcpy(arg, s.data(), s.size());
}

std::string redact_password(std::string_view s) {
  std::string masked(s);
  mask_password_params(masked);
  s = masked;
  std::string out;
  // Each whitespace-separated word on its own (a message may quote two targets).
  size_t i = 0;
  while (i < s.size()) {
    size_t j = i;
    while (j < s.size() && s[j] != ' ' && s[j] != '\'' && s[j] != '"') ++j;
    const std::string_view word = s.substr(i, j - i);
    const auto [b, e] = word.find('@') == std::string_view::npos ? std::pair<size_t, size_t>{0, 0} : password_span(word);
    if (e > b) {
      out.append(word.data(), b);
      out.append("***");
      out.append(word.data() + e, word.size() - e);
    } else {
      out.append(word.data(), word.size());
    }
    if (j < s.size()) out.push_back(s[j]);
    i = j + 1;
  }
  return out;
}

namespace {

// A URL's port: 1 to 65535, digits only; error names it otherwise.
bool parse_port(std::string_view text, const std::string& what, int& port, std::string& error) {
  int p = 0;
  if (text.empty() || std::from_chars(text.data(), text.data() + text.size(), p).ptr != text.data() + text.size() || p <= 0 ||
      p > 65535) {
    error = what + ": '" + std::string(text) + "' is not a port number";
    return false;
  }
  port = p;
  return true;
}

// HOST:PORT, [IPv6]:PORT or HOST (default_port): one member of an etcd or Redis target.
bool parse_host_port(std::string_view text, const std::string& what, int default_port, std::string& host, int& port,
                     std::string& error) {
  std::string_view port_text;
  bool has_port = false;
  if (!text.empty() && text[0] == '[') {
    const size_t close = text.find(']');
    if (close == std::string_view::npos) {
      error = what + ": '[' without its ']': an IPv6 address goes in brackets, as in [::1]:" + std::to_string(default_port);
      return false;
    }
    host = url_decode(text.substr(1, close - 1));
    const std::string_view after = text.substr(close + 1);
    if (!after.empty()) {
      if (after[0] != ':') {
        error = what + ": after the bracketed address, expected ':PORT'";
        return false;
      }
      port_text = after.substr(1);
      has_port = true;
    }
  } else {
    const size_t colon = text.find(':');
    host = url_decode(text.substr(0, colon));
    if (colon != std::string_view::npos) {
      port_text = text.substr(colon + 1);
      has_port = true;
      if (port_text.find(':') != std::string_view::npos) {
        error = what + ": an IPv6 address goes in brackets, as in [::1]:" + std::to_string(default_port);
        return false;
      }
    }
  }
  if (host.empty()) {
    error = what + ": a member has no host name";
    return false;
  }
  port = default_port;
  return !has_port || parse_port(port_text, what, port, error);
}

// etcd://HOST:PORT[,HOST:PORT...][/] and redis://[USER:PASSWORD@]HOST[:PORT][/DB].
bool parse_kv_target(std::string_view url, bool etcd, Target& out, std::string& error) {
  const std::string scheme = etcd ? "etcd" : "redis";
  const std::string what = scheme + " target";
  out.kind = etcd ? DbKind::Etcd : DbKind::Redis;
  std::string_view rest = url.substr(scheme.size() + 3);
  if (const size_t hash = rest.find('#'); hash != std::string_view::npos) rest = rest.substr(0, hash);
  if (rest.find('?') != std::string_view::npos) {
    error = what + " takes no query parameters (" + (etcd ? "etcd://HOST:PORT[,HOST:PORT...]; --reads chooses the reads" : "redis://[USER:PASSWORD@]HOST:PORT[/DB]") + ")";
    return false;
  }
  const size_t at = rest.rfind('@');
  if (at != std::string_view::npos) {
    if (etcd) {
      error = "etcd target: isoscope does not log in to etcd (no user or password: etcd://HOST:PORT[,HOST:PORT...])";
      return false;
    }
    const std::string_view userinfo = rest.substr(0, at);
    const size_t colon = userinfo.find(':');
    out.user = url_decode(userinfo.substr(0, colon));
    if (colon != std::string_view::npos) {
      out.password = url_decode(userinfo.substr(colon + 1));
      out.password_source = "url";
    }
    rest = rest.substr(at + 1);
  }
  const size_t slash = rest.find('/');
  std::string_view path = slash == std::string_view::npos ? std::string_view() : rest.substr(slash + 1);
  std::string_view hosts = rest.substr(0, slash);
  if (etcd) {
    if (!path.empty()) {
      error = "etcd target: nothing follows the members (etcd://HOST:PORT[,HOST:PORT...]), not '/" + std::string(path) + "'";
      return false;
    }
    while (true) {
      const size_t comma = hosts.find(',');
      std::string host;
      int port = 0;
      if (!parse_host_port(hosts.substr(0, comma), what, 2379, host, port, error)) return false;
      out.members.emplace_back(host, port);
      if (comma == std::string_view::npos) break;
      hosts = hosts.substr(comma + 1);
    }
    out.host = out.members[0].first;
    out.port = out.members[0].second;
    out.display = "etcd://";
    for (size_t i = 0; i < out.members.size(); ++i) {
      if (i) out.display += ',';
      out.display += host_port_text(out.members[i].first, out.members[i].second);
    }
    return true;
  }
  if (hosts.find(',') != std::string_view::npos) {
    error = "redis target: one server (redis://[USER:PASSWORD@]HOST:PORT[/DB])";
    return false;
  }
  if (!parse_host_port(hosts, what, 6379, out.host, out.port, error)) return false;
  if (!path.empty()) {
    int db = 0;
    if (std::from_chars(path.data(), path.data() + path.size(), db).ptr != path.data() + path.size() || db < 0) {
      error = "redis target: the database is a number (redis://HOST:PORT/0), not '" + std::string(path) + "'";
      return false;
    }
    out.database = std::to_string(db);
  }
  if (out.password.empty()) {
    const char* env = std::getenv("REDISCLI_AUTH");
    if (env && *env) {
      out.password = env;
      out.password_source = "environment";
    }
  }
  out.display = "redis://" + (out.user.empty() ? std::string() : url_encode(out.user) + "@") + host_port_text(out.host, out.port) +
                (out.database.empty() ? std::string() : "/" + out.database);
  return true;
}

}  // namespace

std::string host_port_text(const std::string& host, int port) {
  std::string s;
  if (host.find(':') != std::string::npos) {
    s += '[';
    s += host;
    s += ']';
  } else {
    s += url_encode(host);
  }
  s += ':';
  s += std::to_string(port);
  return s;
}

bool parse_target(std::string_view url, Target& out, std::string& error) {
  out = Target{};
  if (url.rfind("etcd://", 0) == 0) return parse_kv_target(url, true, out, error);
  if (url.rfind("redis://", 0) == 0) return parse_kv_target(url, false, out, error);
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
    // The text as typed, but never its password.
    error = "'" + redact_password(url) +
            "' is not a target: expected postgresql://USER@HOST:PORT/DB, mariadb://USER@HOST:PORT/DB, "
            "mysql://USER@HOST:PORT/DB, sqlite:PATH, etcd://HOST:PORT[,HOST:PORT...] or redis://[USER:PASSWORD@]HOST:PORT[/DB]";
    return false;
  }
  const std::string what = scheme + " target";
  std::string_view rest = url.substr(scheme_end + 3);
  std::string_view query;
  if (const size_t hash = rest.find('#'); hash != std::string_view::npos) rest = rest.substr(0, hash);
  if (const size_t q = rest.find('?'); q != std::string_view::npos) {
    query = rest.substr(q + 1);
    rest = rest.substr(0, q);
  }
  // The user information ends at the last '@' (as password_span says).
  const size_t at = rest.rfind('@');
  std::string_view authority = rest;
  if (at != std::string_view::npos) {
    const std::string_view userinfo = rest.substr(0, at);
    const size_t colon = userinfo.find(':');
    out.user = url_decode(userinfo.substr(0, colon));
    if (colon != std::string_view::npos) {
      out.password = url_decode(userinfo.substr(colon + 1));
      out.password_source = "url";
    }
    authority = rest.substr(at + 1);
  }
  // MySQL's (socket path) may hold '/': the database follows its ')'.
  const size_t close = out.kind == DbKind::MariaDB && !authority.empty() && authority[0] == '(' ? authority.find(')') : 0;
  const size_t slash = authority.find('/', close == std::string_view::npos ? 0 : close);
  out.database = slash == std::string_view::npos ? "" : url_decode(authority.substr(slash + 1));
  authority = authority.substr(0, slash);
  // host[:port], [IPv6][:port], or (MySQL's form) (socket path).
  std::string_view port_text;
  bool has_port = false;
  if (!authority.empty() && authority[0] == '[') {
    const size_t close = authority.find(']');
    if (close == std::string_view::npos) {
      error = what + ": '[' without its ']': an IPv6 address goes in brackets, as in [::1]:5432";
      return false;
    }
    out.host = url_decode(authority.substr(1, close - 1));
    const std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after[0] != ':') {
        error = what + ": after the bracketed address, expected ':PORT' or '/DB'";
        return false;
      }
      port_text = after.substr(1);
      has_port = true;
    }
    if (out.host.empty() || out.host.find_first_not_of("0123456789abcdefABCDEF:.%") != std::string::npos) {
      error = what + ": '" + out.host + "' in brackets is not an IPv6 address";
      return false;
    }
  } else if (!authority.empty() && authority[0] == '(' && out.kind == DbKind::MariaDB) {
    const size_t close = authority.find(')');
    if (close == std::string_view::npos || close + 1 != authority.size()) {
      error = what + ": a socket in parentheses is (PATH), with nothing after it";
      return false;
    }
    out.host = url_decode(authority.substr(1, close - 1));
  } else {
    const size_t colon = authority.find(':');
    out.host = url_decode(authority.substr(0, colon));
    if (colon != std::string_view::npos) {
      port_text = authority.substr(colon + 1);
      has_port = true;
      if (port_text.find(':') != std::string_view::npos) {
        error = what + ": an IPv6 address goes in brackets, as in " + scheme + "://USER@[::1]:PORT/DB";
        return false;
      }
    }
  }
  if (has_port && !parse_port(port_text, what, out.port, error)) return false;
  while (!query.empty()) {
    const size_t amp = query.find('&');
    const std::string_view kv = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (kv.empty()) continue;
    const size_t eq = kv.find('=');
    if (eq == std::string_view::npos || eq == 0) {
      // Not quoted: it may be a mistyped password=...
      error = what + ": a query parameter is not NAME=VALUE (after '?', parameters are NAME=VALUE joined by '&')";
      return false;
    }
    const std::string name = url_decode(kv.substr(0, eq));
    const std::string value = url_decode(kv.substr(eq + 1));
    if (out.kind == DbKind::PostgreSQL && libpq_keyword(name)) {
      if (name == "password") out.password_source = "url";
      out.connection_params.emplace_back(name, value);
      continue;
    }
    if (out.kind == DbKind::MariaDB && (name == "socket" || name == "password" || name == "user")) {
      if (name == "socket") out.host = value;
      else if (name == "user") out.user = value;
      else out.password = value, out.password_source = "url";
      continue;
    }
    if (!is_identifier(name)) {
      error = what + ": parameter '" + redact_password(name) +
              "' is not a variable name (letters, digits and '_', not beginning with a digit)";
      return false;
    }
    out.session_vars.emplace_back(name, value);
  }
  if (out.kind == DbKind::PostgreSQL)
    for (const auto& [k, v] : out.connection_params) {
      if (k == "dbname") out.database = v;
      if (k == "user") out.user = v;
      if (k == "host") out.host = v;
      if (k == "port") {
        int p = 0;
        if (std::from_chars(v.data(), v.data() + v.size(), p).ptr != v.data() + v.size() || p <= 0 || p > 65535) {
          error = what + ": port '" + v + "' is not a port number";
          return false;
        }
        out.port = p;
      }
    }
  if (out.database.empty()) {
    error = what + " needs a database name: " + scheme + "://USER@HOST:PORT/DB";
    return false;
  }
  if (out.password.empty()) {
    const char* env = std::getenv(out.kind == DbKind::PostgreSQL ? "PGPASSWORD" : "MYSQL_PWD");
    if (env && *env) {
      out.password = env;
      out.password_source = "environment";
    }
  }
  // The display: the URL again, without the password.
  std::string host_text;
  if (out.host.find(':') != std::string::npos) host_text = "[" + out.host + "]";
  else host_text = url_encode(out.host);
  const bool socket = out.host.empty() || out.host[0] == '/';
  out.display = scheme + "://" + (out.user.empty() ? "" : url_encode(out.user) + "@") + host_text +
                (socket && out.kind == DbKind::MariaDB ? "" : ":" + std::to_string(out.port)) + "/" + url_encode(out.database);
  std::string params;
  for (const auto& [k, v] : out.connection_params)
    if (k != "password" && k != "sslpassword" && k != "host" && k != "port" && k != "user" && k != "dbname")
      params += (params.empty() ? "?" : "&") + k + "=" + url_encode(v);
  out.display += params;
  return true;
}

std::string new_run_id(std::string& error) {
  unsigned char bytes[8];
  size_t got = 0;
  while (got < sizeof bytes) {
    const ssize_t n = ::getrandom(bytes + got, sizeof bytes - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      error = std::string("cannot draw a random name for the runner's tables: getrandom: ") + std::strerror(errno);
      return "";
    }
    got += static_cast<size_t>(n);
  }
  static const char* hex = "0123456789abcdef";
  std::string id;
  for (unsigned char b : bytes) {
    id.push_back(hex[b >> 4]);
    id.push_back(hex[b & 15]);
  }
  return id;
}

Schema run_schema(const std::string& run_id, RunTable table, uint32_t keys) {
  Schema s;
  s.run_id = run_id;
  s.keys = keys;
  const std::string prefix = "isoscope_run_" + run_id;
  switch (table) {
    case RunTable::Registers: s.registers = prefix + "_registers"; break;
    case RunTable::Lists: s.lists = prefix + "_lists"; break;
    case RunTable::Rows: s.registers = prefix + "_rows"; break;
  }
  return s;
}

bool runner_table(std::string_view name, std::string& run_id) {
  const std::string_view prefix = "isoscope_run_";
  if (name.rfind(prefix, 0) != 0) return false;
  std::string_view rest = name.substr(prefix.size());
  for (std::string_view suffix : {std::string_view("_registers"), std::string_view("_lists"), std::string_view("_rows")})
    if (rest.size() > suffix.size() && rest.substr(rest.size() - suffix.size()) == suffix) {
      const std::string_view id = rest.substr(0, rest.size() - suffix.size());
      if (id.size() == 16 && id.find_first_not_of("0123456789abcdef") == std::string_view::npos) {
        run_id = std::string(id);
        return true;
      }
      // Earlier versions: <pid>_<seed> (never for _rows, which came after them).
      const size_t u = id.find('_');
      if (suffix != "_rows" && u != std::string_view::npos && u > 0 && u + 1 < id.size() &&
          id.substr(0, u).find_first_not_of("0123456789") == std::string_view::npos &&
          id.substr(u + 1).find_first_not_of("0123456789") == std::string_view::npos) {
        run_id.clear();
        return true;
      }
      return false;
    }
  return false;
}

Status Database::drop_leftover(const Leftover& l) {
  std::string id;
  if (!runner_table(l.table, id)) return {Outcome::Failed, l.table + " is not a runner table"};
  return drop_table(l.table);
}

}  // namespace isoscope::runner
