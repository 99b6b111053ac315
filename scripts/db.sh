#!/usr/bin/env bash
# Throwaway database servers for `isoscope run`, its tests and demos.
#
#   scripts/db.sh postgres|mariadb start   installs the Debian packages when missing, starts the
#                                           server on 127.0.0.1 on a free port under a non-root
#                                           user (isoscope-db when run as root) in a temporary
#                                           data folder, and prints the target URL
#   scripts/db.sh postgres|mariadb url     prints the URL of the running server
#   scripts/db.sh postgres|mariadb stop    stops the server and deletes its data folder
#
# Idempotent: start on a running server prints its URL again. The servers use password
# authentication (never trust), and are tuned for tests, not durability: fsync off, and a
# 100 ms deadlock_timeout for PostgreSQL (the default 1 s makes every deadlock cost a second).
# ISOSCOPE_DB_DIR chooses where the data folders live (default /tmp/isoscope-db).
set -euo pipefail

kind=${1:-}
action=${2:-}
case "$kind" in postgres|postgresql) kind=postgres ;; mariadb|mysql) kind=mariadb ;;
  *) echo "usage: scripts/db.sh postgres|mariadb start|stop|url" >&2; exit 2 ;; esac
case "$action" in start|stop|url) ;; *) echo "usage: scripts/db.sh postgres|mariadb start|stop|url" >&2; exit 2 ;; esac

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
fsync = off
synchronous_commit = off
full_page_writes = off
shared_buffers = '64MB'
EOF
  as_user "$pg_bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start >/dev/null \
    || { cat "$dir/server.log" >&2; return 1; }
  PGPASSWORD=$password "$pg_bin/psql" -h 127.0.0.1 -p "$port" -U "$db_user" -d postgres -qAt \
    -c "CREATE DATABASE $db_name" >/dev/null
  echo "postgresql://$db_user:$password@127.0.0.1:$port/$db_name" > "$dir/url"
}

start_mariadb() {
  apt_install mariadb-server mariadb-client
  ensure_os_user
  prepare_dir
  mkdir -p "$dir/data"
  [ "$(id -u)" -eq 0 ] && chown "$os_user" "$dir/data"
  as_user mariadb-install-db --no-defaults --datadir="$dir/data" --auth-root-authentication-method=socket \
    --auth-root-socket-user="$os_user" --skip-test-db >"$dir/install.log" 2>&1 || { cat "$dir/install.log" >&2; return 1; }
  as_user /usr/sbin/mariadbd --no-defaults --datadir="$dir/data" --bind-address=127.0.0.1 --port="$port" \
    --socket="$dir/mysqld.sock" --pid-file="$dir/pid" --log-error="$dir/server.log" \
    --innodb-flush-log-at-trx-commit=0 --innodb-doublewrite=0 --innodb-buffer-pool-size=64M \
    --innodb-lock-wait-timeout=5 --max-connections=200 --skip-log-bin </dev/null >/dev/null 2>&1 &
  local i
  for i in $(seq 1 120); do
    [ -S "$dir/mysqld.sock" ] && as_user mariadb --no-defaults -S "$dir/mysqld.sock" -u"$os_user" -e 'SELECT 1' >/dev/null 2>&1 && break
    kill -0 $! 2>/dev/null || break
    sleep 0.5
  done
  as_user mariadb --no-defaults -S "$dir/mysqld.sock" -u"$os_user" -e "SELECT 1" >/dev/null 2>&1 \
    || { log "mariadb did not start:"; tail -20 "$dir/server.log" >&2; return 1; }
  # The socket's root runs the set-up; the runner connects over TCP with a password.
  as_user mariadb --no-defaults -S "$dir/mysqld.sock" -u"$os_user" <<EOF
CREATE DATABASE $db_name;
CREATE USER '$db_user'@'127.0.0.1' IDENTIFIED BY '$password';
GRANT ALL ON $db_name.* TO '$db_user'@'127.0.0.1';
GRANT PROCESS, CONNECTION ADMIN ON *.* TO '$db_user'@'127.0.0.1';
EOF
  echo "mariadb://$db_user:$password@127.0.0.1:$port/$db_name" > "$dir/url"
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
    if running && [ -f "$dir/url" ]; then url; exit 0; fi
    case "$kind" in postgres) start_postgres ;; mariadb) start_mariadb ;; esac
    url ;;
esac
