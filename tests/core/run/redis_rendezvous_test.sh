#!/usr/bin/env bash
# Gloo ranks meeting through a Redis server (rendezvous_store =
# "redis://HOST:PORT") instead of a shared directory: local and mpirun ranks
# train, the keys are there and expire, and an unreachable server fails the
# run with an error that names it. Skips (77) when redis-server is not
# installed (tools/install-deps.sh --tests installs it).
#   redis_rendezvous_test.sh DTBENCH MATRIX_DIR
set -euo pipefail
dtbench=$1 matrices=$2
fail() { echo "FAIL: $*"; exit 1; }
command -v redis-server >/dev/null && command -v redis-cli >/dev/null || {
  echo "SKIP: no redis-server/redis-cli here (tools/install-deps.sh --tests installs redis-server)"
  exit 77
}
scratch=$(mktemp -d)
port=$(( 20000 + RANDOM % 20000 ))
redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no --dir "$scratch" > "$scratch/redis.log" 2>&1 &
redis=$!
trap 'kill $redis 2>/dev/null || true; rm -rf "$scratch"' EXIT
for _ in $(seq 100); do redis-cli -p "$port" ping > /dev/null 2>&1 && break; sleep 0.05; done
redis-cli -p "$port" ping | grep -q PONG || { cat "$scratch/redis.log"; fail "redis-server did not start"; }
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
echo "ok"
