#!/usr/bin/env bash
# `dtbench report` in a real browser: the report of a store with two
# experiments (and their comparison) is opened in headless Chromium, whose
# layout engine counts, for every chart, the data marks drawn inside its
# plot area, and names the colour it drew each configuration in on every
# chart (the page's own checks, written into the DOM); every chart must
# have marks, and each configuration one colour on the whole page.
# Skips (exit 77) only when no Chromium is installed —
# tools/install-deps.sh --tests (run by tools/test.sh) installs Debian's.
#   report_browser_test.sh DTBENCH SAMPLE_STORE
set -euo pipefail
dtbench=$1 sample_store=$2
fail() { echo "FAIL: $*"; exit 1; }
chromium=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [[ -z $chromium ]]; then
  echo "SKIP: no Chromium on this machine (tools/install-deps.sh --tests installs Debian's chromium; it could not)"
  exit 77
fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

"$sample_store" "$scratch/r.db" 1.0 1.5   # experiment 2 is 50 % faster than 1
"$dtbench" report "$scratch/r.db" --compare 1 2 -o "$scratch/report.html" 2> "$scratch/err.txt" \
  || { cat "$scratch/err.txt"; fail "report failed"; }
grep -q "report.html (html, 2 experiments)" "$scratch/err.txt" || fail "no summary line"
! grep -Eq '(src|href)="(https?:)?//' "$scratch/report.html" || fail "the page loads something from the network"

timeout 120 "$chromium" --headless=new --no-sandbox --disable-gpu --user-data-dir="$scratch/profile" \
  --dump-dom "file://$scratch/report.html" > "$scratch/dom.html" 2> "$scratch/chromium.txt" \
  || { tail -20 "$scratch/chromium.txt"; fail "chromium could not render the report"; }
charts=$(grep -o 'data-charts="[0-9]*"' "$scratch/dom.html" | grep -o '[0-9]*' || true)
empty=$(grep -o 'data-empty-charts="[0-9]*"' "$scratch/dom.html" | grep -o '[0-9]*' || true)
[[ -n $charts ]] || fail "the page's chart check did not run in the browser"
echo "chromium laid out $charts charts, $empty without data"
# per experiment: throughput, efficiency, bytes per step, step breakdown, test accuracy, loss, memory
# (model state, strategy buffers), busbw
(( charts == 18 )) || fail "expected 18 charts, the browser found $charts"
(( empty == 0 )) || fail "$empty charts show no data"
# One colour per configuration on the whole page, as the browser computed it
# for every series, bar and legend entry: in each experiment's throughput,
# efficiency, bytes per step, test accuracy and loss charts.
clashes=$(grep -o 'data-colour-clashes="[0-9]*"' "$scratch/dom.html" | grep -o '[0-9]*' || true)
colours=$(grep -o 'data-config-colours="[^"]*"' "$scratch/dom.html" || true)
echo "colours: $colours"
[[ -n $clashes ]] || fail "the page's colour check did not run in the browser"
(( clashes == 0 )) || fail "$clashes configurations change colour between charts: $colours"
grep -q 'allreduce: rgb(78, 121, 167) in 10 charts' <<<"$colours" || fail "allreduce is not blue in all 10 charts"
grep -q 'bucketed: rgb(242, 142, 43) in 10 charts' <<<"$colours" || fail "bucketed is not orange in all 10 charts"
grep -q 'linear: bus bytes per step' "$scratch/dom.html" || fail "no bytes-per-step chart"
grep -q '<title>bucketed, 4 ranks: 0.006 MB</title>' "$scratch/dom.html" || fail "bytes per step: 6,000 bytes at 4 ranks"
# Text left, numbers right.
grep -q '<th>configuration</th><th class="r">ranks</th>' "$scratch/dom.html" || fail "headers not aligned"
grep -q '<td>bucketed</td><td class="r">4</td><td class="r">3</td>' "$scratch/dom.html" || fail "cells not aligned"
grep -o 'data-marks-in-plot="[0-9]*"' "$scratch/dom.html" | sort | uniq -c
grep -q '<td class="faster">faster</td>' "$scratch/dom.html" || fail "the comparison's verdict is missing"
# Charts that read at a glance: minor ticks on the log axes, labels whole, the
# sample's identical accuracy curves said to coincide, ZeRO's state apart from buffers.
grep -q 'class="grid minor"' "$scratch/dom.html" || fail "no minor ticks on the log axes"
! grep -q '…' "$scratch/dom.html" || fail "a label is cut short"
grep -q 'lines coincide and draw as one: allreduce ×1 = ' "$scratch/dom.html" || fail "coinciding lines not noted"
grep -q 'model state one rank holds (what ZeRO partitions)' "$scratch/dom.html" || fail "no model-state chart"
grep -q 'bucketed: 4 ranks → 3,520 samples/s \[3,344 – 3,872\]' "$scratch/dom.html" || fail "tooltips without units"
# The verdict heads the page: per model and world size, the decision as a
# headline, then the figures (bucketed is 10 % faster everywhere, inside
# the repeats' +-10 % jitter).
verdict=$(sed -n '/<section class="verdict">/,/<\/section>/p' "$scratch/dom.html")
[[ -n $verdict ]] || fail "no verdict section"
(( $(grep -n '<section class="verdict">' "$scratch/dom.html" | cut -d: -f1) < \
   $(grep -n '<section class="experiment">' "$scratch/dom.html" | head -1 | cut -d: -f1) )) || fail "the verdict is not at the top"
for world in 1 2 4; do
  ranks=$([[ $world == 1 ]] && echo rank || echo ranks)
  grep -q "<strong class=\"decision\">linear / tiny, $world $ranks: " <<<"$verdict" || fail "no headline at $world ranks"
  grep -q "<td>linear / tiny</td><td class=\"r\">$world</td><td>bucketed</td>" <<<"$verdict" || fail "no verdict at $world ranks"
done
grep -q "+10.0 % (allreduce)" <<<"$verdict" || fail "the verdict's margin"
grep -q "no: within the repeats' spread" <<<"$verdict" || fail "the verdict's noise"

echo "== markdown, and a wrong experiment named"
"$dtbench" report "$scratch/r.db" --experiment 2 --format markdown > "$scratch/r.md"
grep -q "^## sample (experiment 2)" "$scratch/r.md" || fail "markdown heading"
grep -q "^| bucketed | 4 | 3 | 3,520.0 |" "$scratch/r.md" && fail "experiment 1's figures in experiment 2's report"
grep -q "^| bucketed | 4 | 3 | 5,280.0 |" "$scratch/r.md" || fail "markdown key figures"
grep -q "^| linear / tiny | 4 | bucketed | 5,280.0 | +10.0 % (allreduce) |" "$scratch/r.md" || fail "markdown verdict"
if "$dtbench" report "$scratch/r.db" --experiment nope 2> "$scratch/e.txt"; then fail "accepted an unknown experiment"; fi
grep -q "no experiment 'nope' in .* (it has: 1 sample, 2 sample)" "$scratch/e.txt" || { cat "$scratch/e.txt"; fail "error"; }
echo "ok"
