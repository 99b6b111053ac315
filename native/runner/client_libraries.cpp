// Loading the database client libraries on first use (see client_libraries.h). The backends call
// the libraries' functions by their usual names; this file defines each function they use as a
// forwarder to the loaded library's own (resolved once), so the program is linked against none
// of them. A function added to a backend needs its line here (the link fails without it).
#include "runner/client_libraries.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>

#ifdef ISOSCOPE_HAVE_LIBPQ
#include <libpq-fe.h>
#endif
#ifdef ISOSCOPE_HAVE_MARIADB
#include <mysql.h>
#endif
#ifdef ISOSCOPE_HAVE_SQLITE
#include <sqlite3.h>
#endif
#ifdef ISOSCOPE_HAVE_CURL
// curl_easy_setopt and curl_easy_getinfo are functions here, not the type-checking macros.
#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>

#include <cstdarg>
#endif
#ifdef ISOSCOPE_HAVE_NGHTTP2
#include <nghttp2/nghttp2.h>
#endif
#ifdef ISOSCOPE_HAVE_HIREDIS
#include <hiredis/hiredis.h>
#endif

namespace isoscope::runner {

namespace {

class ClientLibrary {
 public:
  ClientLibrary(const char* soname, const char* package) : soname_(soname), package_(package) {}

  bool load(std::string& error) {
    std::call_once(once_, [&] {
      handle_ = dlopen(soname_, RTLD_NOW | RTLD_LOCAL);
      if (!handle_) {
        const char* why = dlerror();
        error_ = std::string("cannot load the client library ") + soname_ + " (install the package " + package_ +
                 "): " + (why ? why : "unknown error");
      }
    });
    if (!handle_) error = error_;
    return handle_ != nullptr;
  }

  // A function of the library (loaded now if need be). Its absence is a broken installation:
  // said, and the program ends (a backend has nothing to fall back on).
  void* function(const char* name) {
    std::string error;
    void* f = load(error) ? dlsym(handle_, name) : nullptr;
    if (!f) {
      if (error.empty()) error = std::string(soname_) + " has no function " + name;
      std::fprintf(stderr, "isoscope: %s\n", error.c_str());
      std::exit(2);
    }
    return f;
  }

 private:
  const char* soname_;
  const char* package_;
  std::once_flag once_;
  void* handle_ = nullptr;
  std::string error_;
};

// The sonames of the ABIs the headers describe.
ClientLibrary libpq("libpq.so.5", "libpq5");
ClientLibrary libmariadb("libmariadb.so.3", "libmariadb3");
ClientLibrary libsqlite3("libsqlite3.so.0", "libsqlite3-0");
ClientLibrary libcurl("libcurl.so.4", "libcurl4");
ClientLibrary libnghttp2("libnghttp2.so.14", "libnghttp2-14");
ClientLibrary libhiredis("libhiredis.so.0.14", "libhiredis0.14");

}  // namespace

bool load_client_library(DbKind kind, std::string& error) {
  switch (kind) {
#ifdef ISOSCOPE_HAVE_LIBPQ
    case DbKind::PostgreSQL: return libpq.load(error);
#endif
#ifdef ISOSCOPE_HAVE_MARIADB
    case DbKind::MariaDB: return libmariadb.load(error);
#endif
#ifdef ISOSCOPE_HAVE_SQLITE
    case DbKind::SQLite: return libsqlite3.load(error);
#endif
#if defined(ISOSCOPE_HAVE_CURL) && defined(ISOSCOPE_HAVE_NGHTTP2)
    case DbKind::Etcd: return libcurl.load(error) && libnghttp2.load(error);  // the gateway, and gRPC's HTTP/2
#endif
#ifdef ISOSCOPE_HAVE_HIREDIS
    case DbKind::Redis: return libhiredis.load(error);
#endif
    default: return true;  // not built in: the backend's open says so
  }
}

}  // namespace isoscope::runner

// extern "C" R name PARAMS, forwarding ARGS to the library's name (the header's declaration
// makes a signature that differs from the library's a compile error).
#define ISOSCOPE_FORWARD(lib, R, name, PARAMS, ARGS)                                                  \
  extern "C" R name PARAMS {                                                                          \
    static const auto fn_ = reinterpret_cast<decltype(&name)>(isoscope::runner::lib.function(#name)); \
    return fn_ ARGS;                                                                                    \
  }

#ifdef ISOSCOPE_HAVE_LIBPQ
ISOSCOPE_FORWARD(libpq, PGconn*, PQconnectdbParams, (const char* const* k, const char* const* v, int e), (k, v, e))
ISOSCOPE_FORWARD(libpq, ConnStatusType, PQstatus, (const PGconn* c), (c))
ISOSCOPE_FORWARD(libpq, char*, PQerrorMessage, (const PGconn* c), (c))
ISOSCOPE_FORWARD(libpq, void, PQfinish, (PGconn * c), (c))
ISOSCOPE_FORWARD(libpq, int, PQbackendPID, (const PGconn* c), (c))
ISOSCOPE_FORWARD(libpq, PQnoticeProcessor, PQsetNoticeProcessor, (PGconn * c, PQnoticeProcessor p, void* a), (c, p, a))
ISOSCOPE_FORWARD(libpq, PGresult*, PQexec, (PGconn * c, const char* q), (c, q))
ISOSCOPE_FORWARD(libpq, PGresult*, PQprepare, (PGconn * c, const char* s, const char* q, int n, const Oid* t),
                 (c, s, q, n, t))
ISOSCOPE_FORWARD(libpq, PGresult*, PQexecPrepared,
                 (PGconn * c, const char* s, int n, const char* const* v, const int* l, const int* f, int rf),
                 (c, s, n, v, l, f, rf))
ISOSCOPE_FORWARD(libpq, ExecStatusType, PQresultStatus, (const PGresult* r), (r))
ISOSCOPE_FORWARD(libpq, char*, PQresultErrorMessage, (const PGresult* r), (r))
ISOSCOPE_FORWARD(libpq, char*, PQresultErrorField, (const PGresult* r, int f), (r, f))
ISOSCOPE_FORWARD(libpq, int, PQntuples, (const PGresult* r), (r))
ISOSCOPE_FORWARD(libpq, char*, PQgetvalue, (const PGresult* r, int t, int f), (r, t, f))
ISOSCOPE_FORWARD(libpq, char*, PQcmdTuples, (PGresult * r), (r))
ISOSCOPE_FORWARD(libpq, void, PQclear, (PGresult * r), (r))
ISOSCOPE_FORWARD(libpq, char*, PQescapeLiteral, (PGconn * c, const char* s, size_t n), (c, s, n))
ISOSCOPE_FORWARD(libpq, void, PQfreemem, (void* p), (p))
#endif

#ifdef ISOSCOPE_HAVE_MARIADB
ISOSCOPE_FORWARD(libmariadb, MYSQL*, mysql_init, (MYSQL * m), (m))
ISOSCOPE_FORWARD(libmariadb, int, mysql_options, (MYSQL * m, enum mysql_option o, const void* a), (m, o, a))
ISOSCOPE_FORWARD(libmariadb, MYSQL*, mysql_real_connect,
                 (MYSQL * m, const char* h, const char* u, const char* p, const char* d, unsigned int port,
                  const char* s, unsigned long f),
                 (m, h, u, p, d, port, s, f))
ISOSCOPE_FORWARD(libmariadb, void, mysql_close, (MYSQL * m), (m))
ISOSCOPE_FORWARD(libmariadb, unsigned long, mysql_thread_id, (MYSQL * m), (m))
ISOSCOPE_FORWARD(libmariadb, int, mysql_real_query, (MYSQL * m, const char* q, unsigned long n), (m, q, n))
ISOSCOPE_FORWARD(libmariadb, MYSQL_RES*, mysql_store_result, (MYSQL * m), (m))
ISOSCOPE_FORWARD(libmariadb, void, mysql_free_result, (MYSQL_RES * r), (r))
ISOSCOPE_FORWARD(libmariadb, MYSQL_ROW, mysql_fetch_row, (MYSQL_RES * r), (r))
ISOSCOPE_FORWARD(libmariadb, unsigned long*, mysql_fetch_lengths, (MYSQL_RES * r), (r))
ISOSCOPE_FORWARD(libmariadb, my_ulonglong, mysql_affected_rows, (MYSQL * m), (m))
ISOSCOPE_FORWARD(libmariadb, const char*, mysql_error, (MYSQL * m), (m))
ISOSCOPE_FORWARD(libmariadb, unsigned int, mysql_errno, (MYSQL * m), (m))
ISOSCOPE_FORWARD(libmariadb, unsigned long, mysql_real_escape_string,
                 (MYSQL * m, char* to, const char* from, unsigned long n), (m, to, from, n))
#endif

#ifdef ISOSCOPE_HAVE_SQLITE
ISOSCOPE_FORWARD(libsqlite3, const char*, sqlite3_libversion, (void), ())
ISOSCOPE_FORWARD(libsqlite3, int, sqlite3_open_v2, (const char* f, sqlite3** db, int fl, const char* vfs),
                 (f, db, fl, vfs))
ISOSCOPE_FORWARD(libsqlite3, int, sqlite3_close, (sqlite3 * db), (db))
ISOSCOPE_FORWARD(libsqlite3, int, sqlite3_close_v2, (sqlite3 * db), (db))
ISOSCOPE_FORWARD(libsqlite3, int, sqlite3_busy_timeout, (sqlite3 * db, int ms), (db, ms))
ISOSCOPE_FORWARD(libsqlite3, int, sqlite3_exec,
                 (sqlite3 * db, const char* sql, int (*cb)(void*, int, char**, char**), void* a, char** err),
                 (db, sql, cb, a, err))
ISOSCOPE_FORWARD(libsqlite3, void, sqlite3_free, (void* p), (p))
ISOSCOPE_FORWARD(libsqlite3, const char*, sqlite3_errmsg, (sqlite3 * db), (db))
ISOSCOPE_FORWARD(libsqlite3, int, sqlite3_get_autocommit, (sqlite3 * db), (db))
ISOSCOPE_FORWARD(libsqlite3, int, sqlite3_changes, (sqlite3 * db), (db))
ISOSCOPE_FORWARD(libsqlite3, int, sqlite3_prepare_v2,
                 (sqlite3 * db, const char* sql, int n, sqlite3_stmt** st, const char** tail), (db, sql, n, st, tail))
ISOSCOPE_FORWARD(libsqlite3, int, sqlite3_bind_int64, (sqlite3_stmt * st, int i, sqlite3_int64 v), (st, i, v))
ISOSCOPE_FORWARD(libsqlite3, int, sqlite3_step, (sqlite3_stmt * st), (st))
ISOSCOPE_FORWARD(libsqlite3, int, sqlite3_reset, (sqlite3_stmt * st), (st))
ISOSCOPE_FORWARD(libsqlite3, int, sqlite3_finalize, (sqlite3_stmt * st), (st))
ISOSCOPE_FORWARD(libsqlite3, const unsigned char*, sqlite3_column_text, (sqlite3_stmt * st, int i), (st, i))
ISOSCOPE_FORWARD(libsqlite3, sqlite3_int64, sqlite3_column_int64, (sqlite3_stmt * st, int i), (st, i))
#endif

#ifdef ISOSCOPE_HAVE_CURL
ISOSCOPE_FORWARD(libcurl, CURLcode, curl_global_init, (long flags), (flags))
ISOSCOPE_FORWARD(libcurl, CURL*, curl_easy_init, (void), ())
ISOSCOPE_FORWARD(libcurl, void, curl_easy_cleanup, (CURL * h), (h))
ISOSCOPE_FORWARD(libcurl, CURLcode, curl_easy_perform, (CURL * h), (h))
ISOSCOPE_FORWARD(libcurl, const char*, curl_easy_strerror, (CURLcode c), (c))
ISOSCOPE_FORWARD(libcurl, curl_slist*, curl_slist_append, (curl_slist * l, const char* s), (l, s))
ISOSCOPE_FORWARD(libcurl, void, curl_slist_free_all, (curl_slist * l), (l))
// The variadic two: the argument's type follows from the option's number (curl.h's
// CURLOPTTYPE_*: a long below 10000, a pointer (object or function) below 30000, a curl_off_t
// from there; every CURLINFO_* takes a pointer).
extern "C" CURLcode curl_easy_setopt(CURL* h, CURLoption option, ...) {
  using Fn = CURLcode (*)(CURL*, CURLoption, ...);
  static const auto fn = reinterpret_cast<Fn>(isoscope::runner::libcurl.function("curl_easy_setopt"));
  va_list args;
  va_start(args, option);
  CURLcode rc;
  if (option < CURLOPTTYPE_OBJECTPOINT) rc = fn(h, option, va_arg(args, long));
  else if (option < CURLOPTTYPE_OFF_T) rc = fn(h, option, va_arg(args, void*));
  else rc = fn(h, option, va_arg(args, curl_off_t));
  va_end(args);
  return rc;
}
extern "C" CURLcode curl_easy_getinfo(CURL* h, CURLINFO info, ...) {
  using Fn = CURLcode (*)(CURL*, CURLINFO, ...);
  static const auto fn = reinterpret_cast<Fn>(isoscope::runner::libcurl.function("curl_easy_getinfo"));
  va_list args;
  va_start(args, info);
  void* out = va_arg(args, void*);
  va_end(args);
  return fn(h, info, out);
}
#endif

#ifdef ISOSCOPE_HAVE_NGHTTP2
ISOSCOPE_FORWARD(libnghttp2, int, nghttp2_session_callbacks_new, (nghttp2_session_callbacks * *c), (c))
ISOSCOPE_FORWARD(libnghttp2, void, nghttp2_session_callbacks_del, (nghttp2_session_callbacks * c), (c))
ISOSCOPE_FORWARD(libnghttp2, void, nghttp2_session_callbacks_set_on_frame_recv_callback,
                 (nghttp2_session_callbacks * c, nghttp2_on_frame_recv_callback f), (c, f))
ISOSCOPE_FORWARD(libnghttp2, void, nghttp2_session_callbacks_set_on_header_callback,
                 (nghttp2_session_callbacks * c, nghttp2_on_header_callback f), (c, f))
ISOSCOPE_FORWARD(libnghttp2, void, nghttp2_session_callbacks_set_on_data_chunk_recv_callback,
                 (nghttp2_session_callbacks * c, nghttp2_on_data_chunk_recv_callback f), (c, f))
ISOSCOPE_FORWARD(libnghttp2, void, nghttp2_session_callbacks_set_on_stream_close_callback,
                 (nghttp2_session_callbacks * c, nghttp2_on_stream_close_callback f), (c, f))
ISOSCOPE_FORWARD(libnghttp2, int, nghttp2_session_client_new,
                 (nghttp2_session * *s, const nghttp2_session_callbacks* c, void* user), (s, c, user))
ISOSCOPE_FORWARD(libnghttp2, void, nghttp2_session_del, (nghttp2_session * s), (s))
ISOSCOPE_FORWARD(libnghttp2, int, nghttp2_submit_settings,
                 (nghttp2_session * s, uint8_t flags, const nghttp2_settings_entry* iv, size_t n), (s, flags, iv, n))
ISOSCOPE_FORWARD(libnghttp2, int32_t, nghttp2_submit_request,
                 (nghttp2_session * s, const nghttp2_priority_spec* pri, const nghttp2_nv* nva, size_t n,
                  const nghttp2_data_provider* data, void* stream_user),
                 (s, pri, nva, n, data, stream_user))
ISOSCOPE_FORWARD(libnghttp2, ssize_t, nghttp2_session_mem_send, (nghttp2_session * s, const uint8_t** data), (s, data))
ISOSCOPE_FORWARD(libnghttp2, ssize_t, nghttp2_session_mem_recv, (nghttp2_session * s, const uint8_t* in, size_t n), (s, in, n))
ISOSCOPE_FORWARD(libnghttp2, int, nghttp2_session_check_request_allowed, (nghttp2_session * s), (s))
ISOSCOPE_FORWARD(libnghttp2, const char*, nghttp2_strerror, (int e), (e))
ISOSCOPE_FORWARD(libnghttp2, const char*, nghttp2_http2_strerror, (uint32_t e), (e))
#endif

#ifdef ISOSCOPE_HAVE_HIREDIS
ISOSCOPE_FORWARD(libhiredis, redisContext*, redisConnectWithTimeout, (const char* ip, int port, const struct timeval tv),
                 (ip, port, tv))
ISOSCOPE_FORWARD(libhiredis, int, redisSetTimeout, (redisContext * c, const struct timeval tv), (c, tv))
ISOSCOPE_FORWARD(libhiredis, void, redisFree, (redisContext * c), (c))
ISOSCOPE_FORWARD(libhiredis, int, redisAppendCommandArgv, (redisContext * c, int n, const char** argv, const size_t* lens),
                 (c, n, argv, lens))
ISOSCOPE_FORWARD(libhiredis, int, redisGetReply, (redisContext * c, void** reply), (c, reply))
ISOSCOPE_FORWARD(libhiredis, void, freeReplyObject, (void* reply), (reply))
#endif
