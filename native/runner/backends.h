// The constructors of the implementations of runner::Database (open_database, in
// backends.cpp, dispatches) and what they share.
#pragma once
#include "runner/database.h"

namespace isoscope::runner {

std::unique_ptr<Database> open_postgres(const Target& t, Isolation iso, std::string& error);
std::unique_ptr<Database> open_mariadb(const Target& t, Isolation iso, std::string& error);
std::unique_ptr<Database> open_sqlite(const Target& t, Isolation iso, std::string& error);
std::unique_ptr<Database> open_etcd(const Target& t, Isolation iso, std::string& error);
std::unique_ptr<Database> open_redis(const Target& t, Isolation iso, std::string& error);

// The mark of this process as the owner of a run's tables: "host=H boot=B pid=P start=T
// created=ISO-TIME" (B: the kernel's boot id, T: the process's start in clock ticks since boot).
std::string owner_mark();
// Whether the process a mark names is running: yes, no, or unknown (another host or boot).
enum class Owner : uint8_t { Running, Gone, Unknown };
Owner owner_state(std::string_view mark);
// The human part of a mark: "created TIME by pid P on host H".
std::string owner_note(std::string_view mark);

// "1 5 9" -> {1, 5, 9}; false on anything but integers separated by spaces.
bool parse_list_text(std::string_view text, std::vector<int64_t>& out);

}  // namespace isoscope::runner
