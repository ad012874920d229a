#!/usr/bin/env bash
# expect.sh EXIT_CODE REGEX [!REGEX] -- COMMAND...
# Runs COMMAND; passes only if it exits with EXIT_CODE and its combined
# output matches REGEX (extended, across lines) and, if given, not !REGEX.
set -u
want_code=$1; want=$2; shift 2
unwanted=""
if [[ $1 == !* ]]; then unwanted=${1#!}; shift; fi
[[ $1 == -- ]] && shift
output=$("$@" 2>&1); code=$?
fail() { printf 'FAIL: %s\n--- command: %s\n--- exit code: %s\n--- output:\n%s\n' "$1" "$*" "$code" "$output"; exit 1; }
[[ $code == "$want_code" ]] || fail "expected exit code $want_code"
tr '\n' ' ' <<<"$output" | grep -Eq -- "$want" || fail "output does not match: $want"
if [[ -n $unwanted ]] && tr '\n' ' ' <<<"$output" | grep -Eq -- "$unwanted"; then
  fail "output matches what it must not: $unwanted"
fi
echo "ok"
