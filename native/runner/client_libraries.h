// The database client libraries (libpq, MariaDB Connector/C, SQLite, libcurl and nghttp2 for
// etcd, hiredis) are loaded when `isoscope run` first opens a database of their kind, not when
// the program starts: linked as usual they brought dozens of shared libraries (OpenSSL, GnuTLS,
// Kerberos, LDAP, ...) whose loading and relocation were most of the CPU time of `check` on a
// small history.
#pragma once
#include <string>

#include "runner/database.h"

namespace isoscope::runner {

// Loads the client library of kind (once); false with error naming the library when it cannot.
// The backends' calls into the library (client_libraries.cpp) go through what this loaded.
bool load_client_library(DbKind kind, std::string& error);

}  // namespace isoscope::runner
