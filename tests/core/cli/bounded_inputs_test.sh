#!/usr/bin/env bash
# Every input dtbench reads is bounded and every refusal names the input and
# the limit (issue 32), tried as a hostile or careless user would:
#   - matrix and [comm] files: a FIFO nobody writes to, /dev/zero (and a
#     link to it), 5 MB of comments, a 5 MB string, 5 MB through a pipe (and
#     pipes that carry a matrix, which are read); a ds_config.json; a [comm]
#     file given to validate; unknown tables reported with every other
#     problem at once;
#   - dtbench comm: --ranks past 65,536 (on the command line or in a file),
#     -n past 1,000,000, sizes past 1e12, buffers past this machine's memory,
#     --timeout nan or 1e300, nccl-tests' -g;
#   - dtbench query: a value past SQLite's length limit, a function that
#     outlives --timeout, --timeout nan, a syntax error's place;
#   - dataset files: an IDX file that is a FIFO or a link to /dev/zero;
#   - TMPDIR pointing nowhere.
# Each ends within its timeout with one line that says what and why, and
# leaves nothing running or stored.
#   bounded_inputs_test.sh DTBENCH PLUGIN_DIR
set -euo pipefail
dtbench=$1 plugins=$2
scratch=$(mktemp -d)
trap 'kill -9 $(jobs -p) 2>/dev/null || true; rm -rf "$scratch"' EXIT
db=$scratch/r.db
# shellcheck source=../../support/run_test_lib.sh
source "$(dirname "$0")/../../support/run_test_lib.sh"
export TMPDIR=$scratch

# refused SECONDS PATTERN COMMAND...: the command fails within SECONDS and its
# output matches PATTERN (extended regex, across lines).
refused() {
  local seconds=$1 pattern=$2 output code=0
  shift 2
  output=$(timeout "$seconds" "$@" 2>&1) || code=$?
  [[ $code != 0 ]] || fail "accepted: $*"
  [[ $code != 124 ]] || fail "still running after $seconds s: $*"
  tr '\n' ' ' <<<"$output" | grep -Eq -- "$pattern" || fail "'$*' did not say /$pattern/, but: $output"
}

echo "== matrix files: regular files or pipes of at most 4 MiB"
# A FIFO nobody writes to: 10 s of silence, then its name and why.
mkfifo "$scratch/fifo.toml"
refused 30 "fifo.toml: error: nothing came through this pipe for 10 s \(a FIFO nobody writes to\?\)" \
  "$dtbench" validate "$scratch/fifo.toml"
# Pipes that do carry a matrix are read, as users pipe files.
"$dtbench" validate <(cat "$(dirname "$0")/matrices/one_run.toml") --plugin-path "$plugins" > /dev/null \
  || fail "a matrix through bash's <(...) was refused"
"$dtbench" validate /dev/stdin --plugin-path "$plugins" < <(cat "$(dirname "$0")/matrices/one_run.toml") > /dev/null \
  || fail "a matrix on /dev/stdin was refused"
{ python3 -c "import sys; sys.stdout.write('#' * 5000000)" 2>/dev/null \
    | "$dtbench" validate /dev/stdin > "$scratch/piped.txt" 2>&1; } || true
grep -Eq "/dev/stdin: error: [0-9]+ bytes is over the 4194304-byte limit of a matrix file \(so far\)" "$scratch/piped.txt" \
  || { cat "$scratch/piped.txt"; fail "a pipe past the limit was not refused"; }
refused 10 "/dev/zero: error: is a character device, not a regular file" "$dtbench" validate /dev/zero
ln -s /dev/zero "$scratch/zero.toml"
refused 10 "zero.toml: error: is a character device" "$dtbench" validate "$scratch/zero.toml"
python3 -c "print('# comment\n' * 600000)" > "$scratch/comments.toml"
refused 10 "comments.toml: error: [0-9]+ bytes is over the 4194304-byte limit of a matrix file" \
  "$dtbench" validate "$scratch/comments.toml"
python3 -c "print('[experiment]\nname = \"' + 'x' * 5000000 + '\"')" > "$scratch/string.toml"
refused 10 "string.toml: error: [0-9]+ bytes is over the 4194304-byte limit" "$dtbench" run "$scratch/string.toml" --db "$db"
[[ ! -e $db ]] || fail "a refused matrix created the store"

echo "== other formats and other files are named for what they are"
echo '{"train_batch_size": 64, "zero_optimization": {"stage": 2}}' > "$scratch/ds_config.json"
refused 10 "ds_config.json:1:1: error: TOML syntax: .*this looks like JSON \(a DeepSpeed ds_config.json\?\): dtbench reads TOML matrices" \
  "$dtbench" validate "$scratch/ds_config.json"
printf '[experiment]\nname = "sweep"\n\n[comm]\nops = ["allreduce"]\n' > "$scratch/sweep.toml"
refused 10 'sweep.toml: error: a collective sweep \(\[comm\], no \[run\]\): run it with `dtbench comm .*sweep.toml`' \
  "$dtbench" validate "$scratch/sweep.toml"
cat > "$scratch/deepspeed.toml" <<'EOF'
[experiment]
name = "from-deepspeed"

[zero_optimization]
stage = 2

[fp16]
enabled = true

[run]
model = "lenet"
dataset = "tiny"
nproc_per_node = 2
overlap_comm = true
epochs = 0
EOF
# Every problem at once: the unknown tables do not hide the keys' problems.
refused 10 "deepspeed.toml:4:1: error: unknown table \[zero_optimization\] \(ZeRO is strategy = \"zero\" in \[run\], its settings in \[strategy.zero\].*deepspeed.toml:7:1: error: unknown table \[fp16\] \(mixed precision .* is the \[run\] key precision = \"bf16\" \| \"fp16\".*deepspeed.toml:13:.*'nproc_per_node'.*did you mean 'world_size'.*deepspeed.toml:14:.*'overlap_comm'.*stages 2 and 3.*deepspeed.toml:15:.*epochs.*deepspeed.toml: 5 problems" \
  "$dtbench" --plugin-path "$plugins" validate "$scratch/deepspeed.toml"

echo "== dtbench comm: its file, ranks, iterations, memory and timeout bounded"
refused 10 "dtbench comm: .*zero.toml: is a character device, not a regular file; a sweep file must be one" \
  "$dtbench" comm "$scratch/zero.toml" --db "$db"
refused 10 "dtbench comm: --ranks must be within 1 and 65536, not 100000" "$dtbench" comm --ranks 100000 --db "$db"
refused 10 "dtbench comm: iterations \(-n\) must be within 1 and 1000000, not 1000000000000" \
  "$dtbench" comm -n 1000000000000 --db "$db"
refused 10 "dtbench comm: -e 549755813888 bytes: each rank holds up to 1099.5 GB \(the largest call's input and output\), 2 ranks on this host 2199.0 GB, and MemAvailable is [0-9.]+ GB: lower -e \(--max-bytes\) or --ranks" \
  "$dtbench" comm -b 512G -e 512G --db "$db"
refused 10 "dtbench comm: --timeout must be seconds within 0.001 and 86400, not nan" "$dtbench" comm --timeout nan --db "$db"
refused 10 "dtbench comm: --timeout must be seconds within 0.001 and 86400, not 1e\+300" \
  "$dtbench" comm --timeout 1e300 --db "$db"
printf '[comm]\nranks = 4294967298\n' > "$scratch/ranks.toml"
refused 10 "ranks.toml: \[comm\] ranks must be within 1 and 65536, not 4294967298" "$dtbench" comm "$scratch/ranks.toml" --db "$db"
printf '[comm]\nmax_bytes = 4611686018427387904\nmin_bytes = 4611686018427387904\n' > "$scratch/huge.toml"
refused 10 "-e 4611686018427387904 is past the largest size, 1e12 bytes" "$dtbench" comm "$scratch/huge.toml" --db "$db"
refused 10 "dtbench comm: -g 2: each rank drives one GPU here \(nccl-tests' -g 1\)" "$dtbench" comm -g 2 --db "$db"
[[ ! -e $db ]] || fail "a refused sweep created the store"
timeout 60 "$dtbench" comm -g 1 --backend gloo --ranks 1 --ops allreduce -b 1K -e 1K -w 0 -n 1 --db "$db" \
  > "$scratch/g1.txt" 2>&1 || { cat "$scratch/g1.txt"; fail "-g 1, what dtbench does, was refused"; }

echo "== dtbench query: values, time and the syntax error's place bounded"
refused 10 "dtbench query: .*string or blob too big" "$dtbench" query "$db" "SELECT length(zeroblob(100000000))"
# SQLite 3.40's printf spins ~18 s inside one function: the watchdog ends
# it (StoreReader.ALimitOutlivedInsideOneFunctionIsCalledOut tests that path
# on its own); a SQLite that stops sooner ends it the ordinary way. Either
# way within seconds of the limit, saying so.
started=$SECONDS
refused 20 "dtbench query: .*: the query was stopped after [0-9.]+ s" \
  "$dtbench" query "$db" "SELECT length(printf('%.*c', 2000000000, 'x'))" --timeout 2
(( SECONDS - started <= 8 )) || fail "a 2 s limit took $((SECONDS - started)) s"
refused 10 "--timeout: nan: give 0 \(no limit\) or seconds within 0.001 and 604800" "$dtbench" query "$db" "SELECT 1" --timeout nan
refused 10 "--timeout: 0.0001: give 0" "$dtbench" query "$db" "SELECT 1" --timeout 0.0001
refused 10 'near "run": syntax error \(line 2, column 8\) {5}FORM run {10}\^' "$dtbench" query "$db" "SELECT id
  FORM run"

echo "== dataset files: a FIFO or /dev/zero is named, not read for ever"
mkdir -p "$scratch/mnist"
make_idx() {  # make_idx FILE COUNT ROWS COLS: an IDX of COUNT images (ROWS > 0) or labels
  python3 - "$@" <<'PY'
import struct, sys
path, count, rows, cols = sys.argv[1], *map(int, sys.argv[2:])
with open(path, "wb") as f:
    if rows:
        f.write(struct.pack(">HBBIII", 0, 8, 3, count, rows, cols) + bytes(count * rows * cols))
    else:
        f.write(struct.pack(">HBBI", 0, 8, 1, count) + bytes(i % 10 for i in range(count)))
PY
}
make_idx "$scratch/mnist/train-labels-idx1-ubyte" 64 0 0
make_idx "$scratch/mnist/t10k-images-idx3-ubyte" 16 28 28
make_idx "$scratch/mnist/t10k-labels-idx1-ubyte" 16 0 0
cat > "$scratch/idx.toml" <<EOF
[experiment]
name = "hostile-data"

[run]
model = "mlp"
dataset = "idx"
world_size = 1
epochs = 1
max_steps_per_epoch = 2
loader_threads = 1
threads_per_worker = 1

[dataset.idx]
path = "$scratch/mnist"
EOF
mkfifo "$scratch/mnist/train-images-idx3-ubyte"
refused 60 "FAILED: .*train-images-idx3-ubyte: is a FIFO \(named pipe\), not a regular file; a dataset \(IDX\) file must be one" \
  "$dtbench" --plugin-path "$plugins" run "$scratch/idx.toml" --db "$db"
rm "$scratch/mnist/train-images-idx3-ubyte"
ln -s /dev/zero "$scratch/mnist/train-images-idx3-ubyte"
refused 60 "FAILED: .*train-images-idx3-ubyte: is a character device, not a regular file" \
  "$dtbench" --plugin-path "$plugins" run "$scratch/idx.toml" --db "$db"
expect "SELECT COUNT(*) || ' ' || SUM(r.status = 'failed') FROM run r JOIN experiment e ON e.id = r.experiment_id
        WHERE e.name = 'hostile-data'" "2 2" "both runs stored as failed"
# The run's summary names why a cell failed, and its batch is the global one.
refused 60 "global_batch .* failure .*run [0-9]+ failed: rank 0: dataset 'idx' " \
  "$dtbench" --plugin-path "$plugins" run "$scratch/idx.toml" --db "$db"
[[ $(workers_left) == 0 ]] || fail "workers left behind"

echo "== TMPDIR pointing nowhere: said before anything is stored"
refused 30 "dtbench comm: TMPDIR=$scratch/nowhere: no such directory" \
  env TMPDIR="$scratch/nowhere" "$dtbench" comm --ranks 1 -b 1K -e 1K --db "$scratch/never.db"
refused 30 "dtbench: error: TMPDIR=$scratch/nowhere: no such directory; a local run makes its scratch directory there: point TMPDIR at one, or set rendezvous_dir" \
  env TMPDIR="$scratch/nowhere" "$dtbench" --plugin-path "$plugins" run "$scratch/idx.toml" --db "$scratch/never.db"
[[ ! -e $scratch/never.db ]] || fail "the refused run created a store"
echo "ok"
