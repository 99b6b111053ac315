// The constructors of the three implementations of runner::Database (database.cpp dispatches).
#pragma once
#include "runner/database.h"

namespace isoscope::runner {

std::unique_ptr<Database> open_postgres(const Target& t, Isolation iso, std::string& error);
std::unique_ptr<Database> open_mariadb(const Target& t, Isolation iso, std::string& error);
std::unique_ptr<Database> open_sqlite(const Target& t, Isolation iso, std::string& error);

// "1 5 9" -> {1, 5, 9}; false on anything but integers separated by spaces.
bool parse_list_text(std::string_view text, std::vector<int64_t>& out);

}  // namespace isoscope::runner
