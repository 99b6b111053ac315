#!/usr/bin/env bash
# Throwaway database servers for `isoscope run`, its tests and demos.
#
#   scripts/db.sh postgres|mariadb start   installs the Debian packages when missing, starts the
#                                           server on 127.0.0.1 on a free port under a non-root
#                                           user (isoscope-db when run as root) in a temporary
#                                           data folder, and prints the target URL
#   scripts/db.sh postgres|mariadb url     prints the URL of the running server
#   scripts/db.sh postgres|mariadb stop    stops the server and deletes its data folder
#   scripts/db.sh etcd start [--nodes N]   etcd 3.4: one member, or a cluster of N on loopback
#                                           (a static initial cluster, a client and a peer port
#                                           each); the URL lists every member
#   scripts/db.sh redis start               Redis 7 with a password (requirepass), its default
#                                           persistence (RDB snapshots only)
#   ... start --durable                     a server that loses no acknowledged write when its
#                                           processes are killed: PostgreSQL with fsync and
#                                           synchronous_commit on, MariaDB with
#                                           innodb_flush_log_at_trx_commit = 1, Redis with
#                                           appendonly yes and appendfsync always (etcd always
#                                           fsyncs its log)
#
# Idempotent: start on a running server prints its URL again (one started with the other
# durability is stopped and started afresh). The servers use password authentication (never
# trust; etcd has none, on loopback), and are tuned for tests, not durability, unless --durable: fsync off and
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

usage() { echo "usage: scripts/db.sh postgres|mariadb|etcd|redis start|stop|url [--nodes N (etcd)] [--durable (not etcd)]" >&2; exit 2; }
kind=${1:-}
action=${2:-}
case "$kind" in postgres|postgresql) kind=postgres ;; mariadb|mysql) kind=mariadb ;; etcd|redis) ;; *) usage ;; esac
case "$action" in start|stop|url) ;; *) usage ;; esac
shift 2
nodes=1
durable=no
while [ $# -gt 0 ]; do
  case "$1" in
    --nodes) [ "$kind" = etcd ] && [ "$action" = start ] && [ $# -ge 2 ] && [[ "$2" =~ ^[1-9]$ ]] || usage; nodes=$2; shift 2 ;;
    --durable) [ "$kind" != etcd ] && [ "$action" = start ] || usage; durable=yes; shift ;;
    *) usage ;;
  esac
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
    etcd|redis)
      [ -f "$dir/servers.json" ] || return 1
      local f
      for f in "$dir"/n*/pid; do [ -f "$f" ] && kill -0 "$(cat "$f")" 2>/dev/null || return 1; done ;;
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
write_sql_start_script() {
  {
    echo '#!/usr/bin/env bash'
    echo "# Starts the $kind server of scripts/db.sh on $dir (isoscope run's crash nemesis runs it too)."
    echo 'set -u'
    if [ "$(id -u)" -eq 0 ]; then echo "as_user() { runuser -u '$os_user' -- \"\$@\"; }"; else echo 'as_user() { "$@"; }'; fi
    echo "$1"
  } > "$dir/start.sh"
  chmod 700 "$dir/start.sh"
}

# $dir/servers.json (see the top): $1 the main pid file, $2 the settings in force as JSON members.
write_sql_servers_json() {
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
  write_sql_start_script "as_user '$pg_bin/pg_ctl' -D '$dir/data' -l '$dir/server.log' -w -t 60 start >/dev/null"
  "$dir/start.sh" || { cat "$dir/server.log" >&2; return 1; }
  PGPASSWORD=$password "$pg_bin/psql" -h 127.0.0.1 -p "$port" -U "$db_user" -d postgres -qAt \
    -c "CREATE DATABASE $db_name" >/dev/null
  echo "postgresql://$db_user:$password@127.0.0.1:$port/$db_name" > "$dir/url"
  write_sql_servers_json "$dir/data/postmaster.pid" "\"fsync\": \"$sync\", \"synchronous_commit\": \"$sync\", \"full_page_writes\": \"$sync\""
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
  write_sql_start_script "/usr/sbin/mariadbd --no-defaults $user_opt --datadir='$dir/data' --bind-address=127.0.0.1 --port=$port \\
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
  write_sql_servers_json "$dir/pid" "\"innodb_flush_log_at_trx_commit\": \"$flush\", \"innodb_doublewrite\": \"$doublewrite\""
}

# A node's start.sh (servers.json's "start"): runs the command as $os_user in a session of its
# own, its pid in NODE_DIR/pid, and waits until it listens on 127.0.0.1:PORT.
write_start_script() {
  local node_dir=$1 port=$2
  shift 2
  local run_as="" cmd
  [ "$(id -u)" -eq 0 ] && run_as="setpriv --reuid=$os_user --regid=$os_user --init-groups"
  cmd=$(printf '%q ' "$@")
  {
    echo '#!/usr/bin/env bash'
    echo "# Starts this $kind node again on its data folder (written by scripts/db.sh $kind start)."
    echo 'set -u'
    echo "cd $(printf %q "$node_dir") || exit 1"
    echo 'if ! { [ -f pid ] && kill -0 "$(cat pid)" 2>/dev/null; }; then'
    echo '  rm -f pid'
    # the shell writes its own pid, then becomes the server (exec keeps the pid)
    printf '  setsid bash -c %q </dev/null >>server.log 2>&1 &\n' "echo \$\$ > pid.new && mv pid.new pid && exec $run_as $cmd"
    echo 'fi'
    echo 'for _ in $(seq 1 300); do'
    echo "  [ -s pid ] && (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null && exit 0"
    echo '  sleep 0.1'
    echo 'done'
    echo "echo '$kind node in $node_dir did not accept connections on 127.0.0.1:$port within 30 s' >&2"
    echo 'tail -5 server.log >&2'
    echo 'exit 1'
  } > "$node_dir/start.sh"
  chmod 755 "$node_dir/start.sh"
}

node_dir_for() {
  mkdir -p "$dir/$1"
  [ "$(id -u)" -eq 0 ] && chown "$os_user" "$dir/$1"
  echo "$dir/$1"
}

# servers.json: kind, url, settings (a JSON object), then the nodes' name and address pairs.
write_servers_json() {
  local url=$1 settings=$2 nodes_json="" name address
  shift 2
  while [ $# -gt 0 ]; do
    name=$1 address=$2
    shift 2
    [ -n "$nodes_json" ] && nodes_json+=", "
    nodes_json+="{\"name\": \"$name\", \"address\": \"$address\", \"pid_file\": \"$dir/$name/pid\", \"start\": \"$dir/$name/start.sh\"}"
  done
  echo "{\"kind\": \"$kind\", \"url\": \"$url\", \"settings\": $settings, \"nodes\": [$nodes_json]}" > "$dir/servers.json"
  chmod 600 "$dir/servers.json"
}

start_etcd() {
  apt_install etcd-server etcd-client
  ensure_os_user
  prepare_dir
  local i names=() clients=() peers=() cluster="" token
  token="isoscope-$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')"
  for i in $(seq 1 "$nodes"); do
    names+=("n$i")
    clients+=("$(free_port)")
    peers+=("$(free_port)")
    [ -n "$cluster" ] && cluster+=","
    cluster+="n$i=http://127.0.0.1:${peers[$((i-1))]}"
  done
  local url="etcd://" args=() node_dir
  for i in $(seq 0 $((nodes - 1))); do
    node_dir=$(node_dir_for "${names[$i]}")
    write_start_script "$node_dir" "${clients[$i]}" /usr/bin/etcd --name "${names[$i]}" --data-dir "$node_dir/data" \
      --listen-client-urls "http://127.0.0.1:${clients[$i]}" --advertise-client-urls "http://127.0.0.1:${clients[$i]}" \
      --listen-peer-urls "http://127.0.0.1:${peers[$i]}" --initial-advertise-peer-urls "http://127.0.0.1:${peers[$i]}" \
      --initial-cluster "$cluster" --initial-cluster-token "$token" --initial-cluster-state new --logger zap
    [ "$url" != "etcd://" ] && url+=","
    url+="127.0.0.1:${clients[$i]}"
    args+=("${names[$i]}" "127.0.0.1:${clients[$i]}")
  done
  for i in $(seq 0 $((nodes - 1))); do "$dir/${names[$i]}/start.sh" >&2 || return 1; done
  # The cluster is up when every member reports healthy (a leader is elected).
  local endpoints=${url#etcd://} ok=0
  for _ in $(seq 1 120); do
    if ETCDCTL_API=3 etcdctl --endpoints="$endpoints" --dial-timeout=1s endpoint health >/dev/null 2>&1; then ok=1; break; fi
    sleep 0.25
  done
  [ $ok -eq 1 ] || { log "etcd did not become healthy:"; tail -5 "$dir"/n*/server.log >&2; return 1; }
  write_servers_json "$url" "{\"members\": \"$nodes\", \"initial_cluster\": \"$cluster\"}" "${args[@]}"
  echo "$url" > "$dir/url"
}

start_redis() {
  apt_install redis-server
  ensure_os_user
  prepare_dir
  local node_dir appendonly=no appendfsync=everysec save="3600 1 300 100 60 10000"
  [ "$durable" = yes ] && appendonly=yes appendfsync=always
  node_dir=$(node_dir_for n1)
  # The password in a file only the server's user reads, never on a command line.
  printf '%s\n' "bind 127.0.0.1" "port $port" "dir $node_dir" "requirepass $password" "appendonly $appendonly" \
    "appendfsync $appendfsync" "save $save" "daemonize no" "maxclients 1000" > "$node_dir/redis.conf"
  chmod 600 "$node_dir/redis.conf"
  [ "$(id -u)" -eq 0 ] && chown "$os_user" "$node_dir/redis.conf"
  write_start_script "$node_dir" "$port" /usr/bin/redis-server "$node_dir/redis.conf"
  "$node_dir/start.sh" >&2 || return 1
  local url="redis://default:$password@127.0.0.1:$port"
  write_servers_json "$url" "{\"appendonly\": \"$appendonly\", \"appendfsync\": \"$appendfsync\", \"save\": \"$save\"}" n1 "127.0.0.1:$port"
  echo "$url" > "$dir/url"
}

stop_nodes() {
  local f p pids=()
  for f in "$dir"/n*/pid; do [ -f "$f" ] && pids+=("$(cat "$f")"); done
  for p in "${pids[@]}"; do kill -CONT "$p" 2>/dev/null || true; kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do
    for _ in $(seq 1 60); do kill -0 "$p" 2>/dev/null || break; sleep 0.25; done
    kill -9 "$p" 2>/dev/null || true
  done
}

stop() {
  if [ -d "$dir" ]; then
    case "$kind" in
      etcd|redis) stop_nodes ;;
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
    # What the server was started as (durability, members): a running one started otherwise is
    # started afresh.
    state="durable=$durable nodes=$nodes"
    if running && [ -f "$dir/url" ]; then
      if [ "$(cat "$dir/state" 2>/dev/null || echo "durable=no nodes=1")" = "$state" ]; then url; exit 0; fi
      log "the running $kind server was started otherwise ($(cat "$dir/state" 2>/dev/null || echo "durable=no nodes=1")): starting it afresh ($state)"
      stop
    fi
    case "$kind" in postgres) start_postgres ;; mariadb) start_mariadb ;; etcd) start_etcd ;; redis) start_redis ;; esac
    echo "$state" > "$dir/state"
    url ;;
esac
