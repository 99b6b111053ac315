// The constructors of the implementations of runner::Database (open_database, in
// backends.cpp, dispatches) and what they share.
#pragma once
#include <mutex>
#include <string>

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

// What the key-value targets (etcd, Redis) share: a run's "table" is the keys under one prefix
// (isoscope_run_<ID>_registers/...) and its mark; drop_keys removes them, under mu_ (which also
// guards the target's own administration connection).
class KeyValueDatabase : public Database {
 public:
  Status drop_schema(const Schema&) override {
    if (!created_) return {};
    std::lock_guard<std::mutex> lock(mu_);
    Status st = drop_keys(table_);
    if (st.ok()) created_ = false;
    return st;
  }

 protected:
  Status drop_table(const std::string& name) override {
    std::lock_guard<std::mutex> lock(mu_);
    return drop_keys(name);
  }
  // The keys of the run named name, then its mark (a drop cut short leaves the mark, so
  // --cleanup finds it again). Called with mu_ held.
  virtual Status drop_keys(const std::string& name) = 0;

  std::mutex mu_;
  std::string table_;     // this run's prefix, once create_schema named it
  bool created_ = false;  // create_schema made keys that drop_schema has not dropped
};

// "1 5 9" -> {1, 5, 9}; false on anything but integers separated by spaces.
bool parse_list_text(std::string_view text, std::vector<int64_t>& out);
// The SQL targets' lists table's empty rows of these keys (Connection::add_lists): insert_into,
// the table, the rows, then tail ("INSERT INTO", " ON CONFLICT (k) DO NOTHING" for PostgreSQL).
std::string add_lists_sql(const char* insert_into, const std::string& table, const std::vector<uint32_t>& keys, const char* tail);

}  // namespace isoscope::runner
