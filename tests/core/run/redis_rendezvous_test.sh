#!/usr/bin/env bash
# Gloo ranks meeting through a Redis server (rendezvous_store =
# "redis://HOST:PORT") instead of a shared directory: local and mpirun ranks
# train, the keys are there and expire, and an unreachable server fails the
# run with an error that names it. Skips (77) when redis-server is not
# installed (tools/install-deps.sh --tests installs it). A server with a
# password: the right one in the URL authenticates, a wrong one fails the
# run with the server named, and the password is in no output and nowhere
# in the store. dtbench comm's ranks meet through the server the same way.
#   redis_rendezvous_test.sh DTBENCH MATRIX_DIR
set -euo pipefail
dtbench=$1 matrices=$2
fail() { echo "FAIL: $*"; exit 1; }
command -v redis-server >/dev/null && command -v redis-cli >/dev/null || {
  echo "SKIP: no redis-server/redis-cli here (tools/install-deps.sh --tests installs redis-server)"
  exit 77
}
scratch=$(mktemp -d)
servers=()
trap 'kill "${servers[@]}" 2>/dev/null || true; rm -rf "$scratch"' EXIT
# start_redis NAME [ARGS...]: a server on a free random port (a few tries:
# another test may hold one); sets $port_NAME and answers its ping.
start_redis() {
  local name=$1 try p pid auth=(); shift
  [[ -n ${REDIS_PASSWORD:-} ]] && auth=(--no-auth-warning -a "$REDIS_PASSWORD")
  for try in 1 2 3 4 5; do
    p=$(( 20000 + RANDOM % 20000 ))
    redis-server --port "$p" --bind 127.0.0.1 --save "" --appendonly no --dir "$scratch" "$@" \
      > "$scratch/$name.log" 2>&1 &
    pid=$!
    for _ in $(seq 100); do
      redis-cli -p "$p" "${auth[@]}" ping 2>/dev/null | grep -q PONG && break
      kill -0 "$pid" 2>/dev/null || break  # it exited: the port was taken
      sleep 0.05
    done
    if redis-cli -p "$p" "${auth[@]}" ping 2>/dev/null | grep -q PONG; then
      servers+=("$pid")
      printf -v "port_$name" '%s' "$p"
      return 0
    fi
    kill "$pid" 2>/dev/null || true
  done
  cat "$scratch/$name.log"
  fail "redis-server ($name) did not start"
}
start_redis open
port=$port_open
q() { "$dtbench" query "$1" "$2" --format csv | tail -n +2 | tr -d '\r'; }

echo "== local and mpirun ranks rendezvous through redis://127.0.0.1:$port"
sed "s|^backend = \"gloo\"|backend = \"gloo\"\nlauncher = [\"local\", \"mpirun\"]\nrendezvous_store = \"redis://127.0.0.1:$port\"|" \
  "$matrices/two_scales.toml" > "$scratch/redis.toml"
ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" "$dtbench" run "$scratch/redis.toml" --db "$scratch/r.db" \
  > "$scratch/out.txt" 2>&1 || { cat "$scratch/out.txt"; fail "runs through redis failed"; }
[[ $(q "$scratch/r.db" "SELECT COUNT(*) FROM run WHERE status = 'ok'") == 4 ]] || fail "runs not ok"
keys=$(redis-cli -p "$port" --scan | wc -l)
(( keys > 0 )) || fail "no rendezvous key reached the server"
key=$(redis-cli -p "$port" --scan | head -1)
ttl=$(redis-cli -p "$port" ttl "$key")
(( ttl > 0 )) || fail "key $key does not expire (ttl $ttl)"
echo "$keys keys on the server, expiring (ttl $ttl s)"

echo "== an unreachable server fails the run and names it"
sed "s|redis://127.0.0.1:$port|redis://127.0.0.1:1|; s|launcher = \\[\"local\", \"mpirun\"\\]|launcher = \"local\"|; s|world_size = \\[1, 2\\]|world_size = 2|" \
  "$scratch/redis.toml" > "$scratch/bad.toml"
if "$dtbench" run "$scratch/bad.toml" --db "$scratch/b.db" > "$scratch/bad.txt" 2>&1; then fail "ran without a server"; fi
q "$scratch/b.db" "SELECT error FROM run" | grep -q "cannot reach the Redis server at 127.0.0.1:1" \
  || { q "$scratch/b.db" "SELECT error FROM run"; fail "error does not name the server"; }

echo "== a server with a password: redis://:PASSWORD@HOST:PORT authenticates; the password is never shown or stored"
REDIS_PASSWORD=s3cretpw start_redis secured --requirepass s3cretpw
secret_port=$port_secured
sed "s|redis://127.0.0.1:1|redis://:s3cretpw@127.0.0.1:$secret_port|" "$scratch/bad.toml" > "$scratch/secret.toml"
"$dtbench" run "$scratch/secret.toml" --db "$scratch/s.db" > "$scratch/secret.txt" 2>&1 \
  || { cat "$scratch/secret.txt"; fail "a run with the right password failed"; }
sed "s|s3cretpw|wrongpw|" "$scratch/secret.toml" > "$scratch/wrong.toml"
if "$dtbench" run "$scratch/wrong.toml" --db "$scratch/s.db" > "$scratch/wrong.txt" 2>&1; then fail "a wrong password ran"; fi
q "$scratch/s.db" "SELECT error FROM run WHERE status = 'failed'" | grep -q "the Redis server at 127.0.0.1:$secret_port refused the credentials" \
  || { q "$scratch/s.db" "SELECT error FROM run"; fail "a wrong password is not named as such"; }
python3 -c "import sqlite3, sys; print('\n'.join(sqlite3.connect(sys.argv[1]).iterdump()))" "$scratch/s.db" > "$scratch/dump.sql"
for leak in "$scratch/secret.txt" "$scratch/wrong.txt" "$scratch/dump.sql"; do
  ! grep -Eq "s3cretpw|wrongpw" "$leak" || { grep -E "s3cretpw|wrongpw" "$leak" | head -3; fail "the password leaked into $leak"; }
done
grep -q "redis://:\*\*\*@127.0.0.1:$secret_port" "$scratch/dump.sql" || fail "the stored matrix lost the URL's shape"

echo "== dtbench comm: a sweep's ranks meet through the server too (--rendezvous-store), password kept out of the store"
before=$(redis-cli -p "$secret_port" -a s3cretpw --no-auth-warning --scan | wc -l)
"$dtbench" comm --backend gloo --ranks 2 --ops allreduce -b 1K -e 1K -w 0 -n 1 \
  --rendezvous-store "redis://:s3cretpw@127.0.0.1:$secret_port" --db "$scratch/c.db" > "$scratch/comm.txt" 2>&1 \
  || { cat "$scratch/comm.txt"; fail "a sweep through redis failed"; }
after=$(redis-cli -p "$secret_port" -a s3cretpw --no-auth-warning --scan | wc -l)
(( after > before )) || fail "the sweep put no rendezvous key on the server ($before -> $after)"
python3 -c "import sqlite3, sys; print('\n'.join(sqlite3.connect(sys.argv[1]).iterdump()))" "$scratch/c.db" > "$scratch/cdump.sql"
! grep -q s3cretpw "$scratch/comm.txt" "$scratch/cdump.sql" || fail "the password leaked from dtbench comm"
grep -q "redis://:\*\*\*@127.0.0.1:$secret_port" "$scratch/cdump.sql" || fail "the sweep's stored settings lost the store"

echo "== a user name without its password is refused, saying how to write it"
sed "s|redis://:s3cretpw@|redis://admin@|" "$scratch/secret.toml" > "$scratch/user.toml"
if "$dtbench" run "$scratch/user.toml" --db "$scratch/u.db" > "$scratch/user.txt" 2>&1; then fail "a user alone ran"; fi
q "$scratch/u.db" "SELECT error FROM run" | grep -q "a user name needs its password after a .:. (USER:PASSWORD@HOST)" \
  || { q "$scratch/u.db" "SELECT error FROM run"; fail "a user without a password is not explained"; }
echo "ok"
