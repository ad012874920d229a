#!/usr/bin/env bash
# The released ABI v1, checked with libabigail beside the layout table
# (tests/tools/abi_layout_test.cpp): libabigail compares every public type as
# the compiler's debug information describes it, members' types and enum
# values included, not only the members the table lists.
#
#   abi_check.sh SURFACE_SO BASELINE_XML
#
# SURFACE_SO is tests/abi/abi_surface.c built from the current headers (-g
# -O0); BASELINE_XML is the same object built from the released v1 headers and
# dumped once with
#   abidw --no-corpus-path --no-show-locs --no-comp-dir-path --drop-private-types surface.so
# It is never regenerated within major version 1: growth is judged against it.
#
# The rule (docs/plugin-abi.md, "Versioning rules"): a struct that carries
# struct_size may gain members after its released end; nothing else may
# change. So the members past each released end are removed from the current
# dump (trim_appended.py), except in the value types embedded in other
# structs, which are frozen, and abidiff must then find no change at all.
# Its exit status has bit 2 for any ABI change and bit 3 for an incompatible
# one (a removed function); both fail here. libabigail itself deems a renamed
# member and an added enumerator harmless and does not report them; the
# layout table catches a rename, and appending an enumerator is allowed.
set -euo pipefail
surface=$1
baseline=$2
here=$(cd "$(dirname "$0")" && pwd)
# Embedded by value (dtb_param_t holds two dtb_tensor_t, every descriptor
# starts with a dtb_plugin_header_t): growing one moves its users' members.
frozen=(dtb_device dtb_tensor dtb_plugin_header)

for tool in abidw abidiff python3; do
  if ! command -v "$tool" >/dev/null; then
    echo "abi_check: $tool not found; install abigail-tools (tools/install-deps.sh)" >&2
    exit 1
  fi
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

abidw --no-corpus-path --no-show-locs --no-comp-dir-path --drop-private-types "$surface" >"$work/current.xml"
python3 "$here/trim_appended.py" "$baseline" "$work/current.xml" "$work/trimmed.xml" "${frozen[@]}"
status=0
abidiff "$baseline" "$work/trimmed.xml" >"$work/report.txt" || status=$?
if ((status != 0)); then
  cat "$work/report.txt"
  echo >&2
  if ((status & 8)); then
    echo "abi_check: INCOMPATIBLE change against the released ABI v1 (abidiff status $status): see above" >&2
  elif ((status & 4)); then
    echo "abi_check: the ABI v1 changed (abidiff status $status): only members appended after a struct's" \
         "released end are allowed (and none to ${frozen[*]}); see above" >&2
  else
    echo "abi_check: abidiff failed (status $status)" >&2
  fi
  exit 1
fi
echo "abi_check: the current headers keep ABI v1 ($(grep -c '<class-decl' "$baseline") struct declarations compared)"
