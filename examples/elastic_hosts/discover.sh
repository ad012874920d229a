#!/bin/sh
# A host discovery script, horovodrun's contract: print the hosts that may
# run workers now, HOST or HOST:SLOTS a line, and exit 0 (a non-zero exit
# keeps the hosts as they were). dtbench runs it every discovery_interval_s,
# killed after discovery_timeout_s. This one prints a file's lines (run.sh
# edits it); on Slurm, `scontrol show hostnames "$SLURM_JOB_NODELIST"`
# prints the allocation's hosts, one a line.
exec cat "${1:?usage: discover.sh HOSTS_FILE}"
