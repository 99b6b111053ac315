#!/usr/bin/env bash
# Throwaway database servers for `isoscope run`, its tests and demos.
#
#   scripts/db.sh postgres|mariadb start   installs the Debian packages when missing, starts the
#                                           server on 127.0.0.1 on a free port under a non-root
#                                           user (isoscope-db when run as root) in a temporary
#                                           data folder, and prints the target URL
#   scripts/db.sh postgres|mariadb url     prints the URL of the running server
#   scripts/db.sh postgres|mariadb stop    stops the server and deletes its data folder
#   ... start --durable                     a server that loses no acknowledged commit when its
#                                           processes are killed: PostgreSQL with fsync and
#                                           synchronous_commit on, MariaDB with
#                                           innodb_flush_log_at_trx_commit = 1
#
# Idempotent: start on a running server prints its URL again (one started with the other
# durability is stopped and started afresh). The servers use password authentication (never
# trust), and are tuned for tests, not durability, unless --durable: fsync off and
# synchronous_commit off (PostgreSQL), innodb_flush_log_at_trx_commit = 0 (MariaDB), and a
# 100 ms deadlock_timeout for PostgreSQL (the default 1 s makes every deadlock cost a second).
# ISOSCOPE_DB_DIR chooses where the data folders live (default /tmp/isoscope-db).
#
# Beside the URL, each server's folder holds servers.json, which tells `isoscope run --nemesis
# pause,crash` how to reach the server's processes (docs/testing-a-database.md, "Faults"):
#   {"kind": ..., "url": ..., "settings": {...}, "nodes": [{"name": ..., "address": "HOST:PORT",
#    "pid_file": ..., "start": ...}]}
# pid_file holds the server's main process id (the nemesis pauses or kills it with every process
# below it); start is a script that starts that node again on its data folder and returns once it
# accepts connections.
set -euo pipefail

kind=${1:-}
action=${2:-}
usage() { echo "usage: scripts/db.sh postgres|mariadb start [--durable]|stop|url" >&2; exit 2; }
case "$kind" in postgres|postgresql) kind=postgres ;; mariadb|mysql) kind=mariadb ;; *) usage ;; esac
case "$action" in start|stop|url) ;; *) usage ;; esac
durable=no
for arg in "${@:3}"; do
  case "$arg" in --durable) [ "$action" = start ] || usage; durable=yes ;; *) usage ;; esac
done

base=${ISOSCOPE_DB_DIR:-/tmp/isoscope-db}
dir=$base/$kind
db_user=isoscope
db_name=isoscope
pg_bin=/usr/lib/postgresql/15/bin

# The operating-system user the server runs as: never root (PostgreSQL refuses it).
if [ "$(id -u)" -eq 0 ]; then
  os_user=isoscope-db
  as_user() { runuser -u "$os_user" -- "$@"; }
else
  os_user=$(id -un)
  as_user() { "$@"; }
fi

log() { echo "db.sh: $*" >&2; }

. "$(dirname "$0")/apt-install.sh"

ensure_os_user() {
  [ "$(id -u)" -eq 0 ] || return 0
  id -u "$os_user" >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin "$os_user"
}

# A TCP port nobody listens on (the kernel picks it).
free_port() {
  node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

url() {
  [ -f "$dir/url" ] || { log "no $kind server is running (scripts/db.sh $kind start)"; return 1; }
  cat "$dir/url"
}

running() {
  case "$kind" in
    postgres) [ -d "$dir/data" ] && as_user "$pg_bin/pg_ctl" -D "$dir/data" status >/dev/null 2>&1 ;;
    mariadb) [ -f "$dir/pid" ] && kill -0 "$(cat "$dir/pid")" 2>/dev/null ;;
  esac
}

prepare_dir() {
  rm -rf "$dir"
  mkdir -p "$base"
  chmod 755 "$base"
  mkdir -p "$dir"
  [ "$(id -u)" -eq 0 ] && chown "$os_user" "$dir"
  chmod 700 "$dir"
  # A fresh password per server: the URL carries it.
  password=$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
  port=$(free_port)
}

# $dir/start.sh: starts the server on its data folder (the first time and after a crash); the
# body runs with as_user defined, and returns once the server accepts connections.
write_start_script() {
  {
    echo '#!/usr/bin/env bash'
    echo "# Starts the $kind server of scripts/db.sh on $dir (isoscope run's crash nemesis runs it too)."
    echo 'set -u'
    if [ "$(id -u)" -eq 0 ]; then echo "as_user() { runuser -u '$os_user' -- \"\$@\"; }"; else echo 'as_user() { "$@"; }'; fi
    echo "$1"
  } > "$dir/start.sh"
  chmod 700 "$dir/start.sh"
  echo "$durable" > "$dir/durable"
}

# $dir/servers.json (see the top): $1 the main pid file, $2 the settings in force as JSON members.
write_servers_json() {
  printf '{"kind": "%s", "url": "%s", "settings": {%s}, "nodes": [{"name": "%s", "address": "127.0.0.1:%s", "pid_file": "%s", "start": "%s"}]}\n' \
    "$kind" "$(cat "$dir/url")" "$2" "$kind" "$port" "$1" "$dir/start.sh" > "$dir/servers.json"
  chmod 600 "$dir/servers.json"
}

start_postgres() {
  apt_install postgresql-15 postgresql-client-15
  ensure_os_user
  prepare_dir
  local pwfile=$dir/pwfile
  echo "$password" > "$pwfile"
  [ "$(id -u)" -eq 0 ] && chown "$os_user" "$pwfile"
  as_user "$pg_bin/initdb" -D "$dir/data" -U "$db_user" --auth=scram-sha-256 --pwfile="$pwfile" -E UTF8 --no-sync >"$dir/initdb.log" 2>&1 \
    || { cat "$dir/initdb.log" >&2; return 1; }
  rm -f "$pwfile"
  cat >> "$dir/data/postgresql.conf" <<EOF
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$dir'
max_connections = 200
deadlock_timeout = '100ms'
shared_buffers = '64MB'
EOF
  local sync=off
  [ "$durable" = yes ] && sync=on
  printf 'fsync = %s\nsynchronous_commit = %s\nfull_page_writes = %s\n' $sync $sync $sync >> "$dir/data/postgresql.conf"
  write_start_script "as_user '$pg_bin/pg_ctl' -D '$dir/data' -l '$dir/server.log' -w -t 60 start >/dev/null"
  "$dir/start.sh" || { cat "$dir/server.log" >&2; return 1; }
  PGPASSWORD=$password "$pg_bin/psql" -h 127.0.0.1 -p "$port" -U "$db_user" -d postgres -qAt \
    -c "CREATE DATABASE $db_name" >/dev/null
  echo "postgresql://$db_user:$password@127.0.0.1:$port/$db_name" > "$dir/url"
  write_servers_json "$dir/data/postmaster.pid" "\"fsync\": \"$sync\", \"synchronous_commit\": \"$sync\", \"full_page_writes\": \"$sync\""
}

start_mariadb() {
  apt_install mariadb-server mariadb-client
  ensure_os_user
  prepare_dir
  mkdir -p "$dir/data"
  [ "$(id -u)" -eq 0 ] && chown "$os_user" "$dir/data"
  as_user mariadb-install-db --no-defaults --datadir="$dir/data" --auth-root-authentication-method=socket \
    --auth-root-socket-user="$os_user" --skip-test-db >"$dir/install.log" 2>&1 || { cat "$dir/install.log" >&2; return 1; }
  local flush=0 doublewrite=0
  [ "$durable" = yes ] && flush=1 doublewrite=1
  # mariadbd drops root itself (--user): no runuser stays behind as its parent, which would stop
  # itself when the nemesis stops the server (as su does, for job control) and never go on.
  local user_opt=""
  [ "$(id -u)" -eq 0 ] && user_opt="--user=$os_user"
  write_start_script "/usr/sbin/mariadbd --no-defaults $user_opt --datadir='$dir/data' --bind-address=127.0.0.1 --port=$port \\
  --socket='$dir/mysqld.sock' --pid-file='$dir/pid' --log-error='$dir/server.log' \\
  --innodb-flush-log-at-trx-commit=$flush --innodb-doublewrite=$doublewrite --innodb-buffer-pool-size=64M \\
  --innodb-lock-wait-timeout=5 --max-connections=200 --skip-log-bin </dev/null >/dev/null 2>&1 &
server=\$!
for i in \$(seq 1 120); do
  [ -S '$dir/mysqld.sock' ] && as_user mariadb --no-defaults -S '$dir/mysqld.sock' -u'$os_user' -e 'SELECT 1' >/dev/null 2>&1 && exit 0
  kill -0 \$server 2>/dev/null || break
  sleep 0.5
done
echo 'mariadb did not start:' >&2; tail -20 '$dir/server.log' >&2; exit 1"
  "$dir/start.sh" || return 1
  # The socket's root runs the set-up; the runner connects over TCP with a password.
  as_user mariadb --no-defaults -S "$dir/mysqld.sock" -u"$os_user" <<EOF
CREATE DATABASE $db_name;
CREATE USER '$db_user'@'127.0.0.1' IDENTIFIED BY '$password';
GRANT ALL ON $db_name.* TO '$db_user'@'127.0.0.1';
GRANT PROCESS, CONNECTION ADMIN ON *.* TO '$db_user'@'127.0.0.1';
EOF
  echo "mariadb://$db_user:$password@127.0.0.1:$port/$db_name" > "$dir/url"
  write_servers_json "$dir/pid" "\"innodb_flush_log_at_trx_commit\": \"$flush\", \"innodb_doublewrite\": \"$doublewrite\""
}

stop() {
  if [ -d "$dir" ]; then
    case "$kind" in
      postgres) [ -d "$dir/data" ] && as_user "$pg_bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true ;;
      mariadb)
        if [ -f "$dir/pid" ]; then
          local pid
          pid=$(cat "$dir/pid")
          kill "$pid" 2>/dev/null || true
          for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
        fi ;;
    esac
    rm -rf "$dir"
  fi
}

case "$action" in
  url) url ;;
  stop) stop ;;
  start)
    if running && [ -f "$dir/url" ]; then
      if [ "$(cat "$dir/durable" 2>/dev/null || echo no)" = "$durable" ]; then url; exit 0; fi
      log "the running $kind server has the other durability: starting it afresh"
      stop
    fi
    case "$kind" in postgres) start_postgres ;; mariadb) start_mariadb ;; esac
    url ;;
esac
