#!/usr/bin/env bash
# A test cluster on this machine: N hosts as Linux network namespaces on one
# switch, each with its own interface (eth0), address (10.77.0.1, .2, ...)
# and host name (h0, h1, ...), so that dtbench's multi-host paths — mpirun
# with a hostfile, Gloo's rendezvous across hosts, a transport bound to an
# interface — run as they would on a cluster. Needs root (iproute2's
# `ip netns`, util-linux's `unshare`) and dtbench-switch (built with
# dtbench; DTBENCH_SWITCH names another), whose links dtbench shapes to a
# network profile (the run key `network`, docs/networks.md). Traffic stays
# among the namespaces: the switch lives in a namespace of its own, and
# nothing is routed out.
#
#   tools/cluster.sh up DIR N          make N hosts; DIR gets hostfile, hosts, agent, ssh
#   tools/cluster.sh on DIR HOST CMD…  run CMD on HOST (h0, h1, … or its address)
#   tools/cluster.sh link DIR HOST up|down   take HOST's link down or bring it back
#   tools/cluster.sh slurm DIR         start Slurm on it: slurmctld on h0, slurmd on every host
#   tools/cluster.sh down DIR          remove the cluster (every namespace it made, Slurm too)
#
# DIR/hostfile is an mpirun hostfile (each host's address, slots=2); DIR/agent
# is what mpirun uses instead of ssh to start its daemon on a host
# (`--mca plm_rsh_agent DIR/agent`); DIR/ssh is an ssh for dtbench's ssh
# launcher (launcher_args = "DIR/ssh"), whose output crosses the network;
# DIR/hosts lists "name address" lines.
# With Slurm, DIR/slurm/slurm.conf is the cluster's configuration (munge on a
# socket of its own in DIR/munge); `on` sets SLURM_CONF to it, so srun,
# sbatch and squeue run on any host reach this cluster. DIR/switch.sock is
# the switch's control socket; `on` sets DTBENCH_NETWORK_CONTROL to it.
set -euo pipefail

usage() { sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
[[ $# -ge 2 ]] || usage
action=$1 dir=$2
shift 2
self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
# The switch: DTBENCH_SWITCH, else the one built beside this checkout, else PATH's.
switch=${DTBENCH_SWITCH:-$(dirname "$self")/../build/bin/dtbench-switch}
[[ -x $switch ]] || switch=$(command -v dtbench-switch || echo "$switch")

# Namespace names carry the cluster's id, so two clusters (two tests at
# once) never meet.
ns() { echo "dtb$(cat "$dir/id")-$1"; }
host_index() {
  local host=$1 name address i=0
  while read -r name address; do
    [[ $host == "$name" || $host == "$address" ]] && { echo "$i"; return; }
    i=$((i + 1))
  done <"$dir/hosts"
  echo "cluster.sh: no host '$host' in $dir/hosts" >&2
  exit 1
}

case $action in
  up)
    [[ $# -eq 1 && $1 =~ ^[1-9][0-9]?$ ]] || usage
    count=$1
    [[ ! -f $dir/id ]] || { echo "cluster.sh: $dir holds a cluster already; take it down first" >&2; exit 1; }
    mkdir -p "$dir"
    echo $((RANDOM % 90000 + 10000)) >"$dir/id"
    : >"$dir/hosts"
    : >"$dir/hostfile"
    # Whatever fails half-way is taken down again.
    trap '"$self" down "$dir" >/dev/null 2>&1 || true' ERR
    # The network is dtbench-switch (tools/network_switch): one TAP device
    # per host, made and served by the switch in a namespace of its own,
    # then moved into its host as eth0. Unshaped until dtbench shapes it
    # (the cell's `network`) through DIR/switch.sock.
    ip netns add "$(ns sw)"
    taps=()
    for ((i = 0; i < count; ++i)); do taps+=("dtb$(cat "$dir/id")t$i"); done
    rm -f "$dir/switch.sock"  # a cluster's before, taken down with SIGKILL, may have left it
    nsenter --net="/run/netns/$(ns sw)" setsid "$switch" --control "$dir/switch.sock" "${taps[@]}" \
      </dev/null >"$dir/switch.log" 2>&1 &
    echo $! >"$dir/switch.pid"
    for _ in $(seq 100); do [[ -S $dir/switch.sock ]] && break; sleep 0.05; done
    [[ -S $dir/switch.sock ]] || { echo "cluster.sh: the switch did not start: $(cat "$dir/switch.log")" >&2; false; }
    for ((i = 0; i < count; ++i)); do
      host=$(ns "h$i") address=10.77.0.$((i + 1))
      ip netns add "$host"
      ip -n "$(ns sw)" link set "${taps[i]}" netns "$host"
      ip -n "$host" link set "${taps[i]}" name eth0
      ip -n "$host" addr add "$address/24" dev eth0
      ip -n "$host" link set eth0 up
      ip -n "$host" link set lo up
      # A connection idle for a while keeps its window, as HPC hosts are
      # tuned: a sweep's first call of a size would otherwise start slowly.
      nsenter --net="/run/netns/$host" sysctl -q -w net.ipv4.tcp_slow_start_after_idle=0
      echo "h$i $address" >>"$dir/hosts"
      echo "$address slots=2" >>"$dir/hostfile"
    done
    trap - ERR
    # mpirun calls its agent as ssh: [options] HOST COMMAND (one string).
    cat >"$dir/agent" <<EOF
#!/usr/bin/env bash
while [[ \$1 == -* ]]; do shift; done
host=\$1
shift
exec "$self" on "$dir" "\$host" sh -c "\$*"
EOF
    chmod +x "$dir/agent"
    # dtbench's ssh launcher gets an ssh stand-in whose output crosses the
    # cluster's network as ssh's does (the agent above hands it over on this
    # machine, which mpirun's daemons never notice: they talk over TCP): a
    # host whose link is down then goes silent, and what runs there cannot
    # report to the coordinator.
    cat >"$dir/ssh" <<EOF
#!/usr/bin/env python3
# DIR/ssh [options] HOST COMMAND: COMMAND on HOST, its output and errors
# back over two TCP connections to this host's address.
import os, socket, subprocess, sys, threading
args = sys.argv[1:]
while args and args[0].startswith("-"):
    args.pop(0)
host, command = args[0], " ".join(args[1:])
hosts = dict(line.split() for line in open("$dir/hosts"))
here = hosts[socket.gethostname()]
listeners = [socket.create_server((here, 0)) for _ in range(2)]
ports = [listener.getsockname()[1] for listener in listeners]
# A host that cannot reach back ends here, as ssh fails: exit 255.
remote = f'exec >/dev/tcp/{here}/{ports[0]} 2>/dev/tcp/{here}/{ports[1]} || exit 255; exec sh -c "\$0"'
# Standard input stays dtbench's: a worker ends when it does (--exit-with-stdin).
child = subprocess.Popen(["$self", "on", "$dir", host, "bash", "-c", remote, command])
def relay(listener, fd):
    listener.settimeout(60)
    try:
        connection, _ = listener.accept()
        while data := connection.recv(65536):
            os.write(fd, data)
    except OSError:
        pass
threads = [threading.Thread(target=relay, args=pair, daemon=True) for pair in zip(listeners, (1, 2))]
for thread in threads:
    thread.start()
code = child.wait()
for thread in threads:
    thread.join(timeout=5)  # its last words may still be crossing
sys.exit(code)
EOF
    chmod +x "$dir/ssh"
    ;;
  on)
    [[ $# -ge 2 ]] || usage
    i=$(host_index "$1")
    shift
    [[ -f $dir/slurm/slurm.conf ]] && export SLURM_CONF=$dir/slurm/slurm.conf
    # dtbench shapes the network through the switch (the cell's `network`).
    export DTBENCH_NETWORK_CONTROL=$dir/switch.sock
    # Its own UTS namespace: the host's name is h<i> for whatever runs there.
    exec nsenter --net="/run/netns/$(ns "h$i")" unshare --uts sh -c 'hostname "$0"; exec "$@"' "h$i" "$@"
    ;;
  slurm)
    for tool in munged slurmctld slurmd srun sinfo; do
      command -v "$tool" >/dev/null || { echo "cluster.sh: no $tool (apt-get install slurmctld slurmd slurm-client munge)" >&2; exit 1; }
    done
    mkdir -p "$dir/munge" "$dir/slurm/state"
    chmod 700 "$dir/munge"
    head -c 1024 /dev/urandom >"$dir/munge/key"
    chmod 600 "$dir/munge/key"
    munged --force --socket="$dir/munge/socket" --key-file="$dir/munge/key" --pid-file="$dir/munge/pid" \
      --log-file="$dir/munge/log" --seed-file="$dir/munge/seed"
    {
      echo "ClusterName=dtb$(cat "$dir/id")"
      echo "SlurmctldHost=h0($(awk 'NR == 1 {print $2}' "$dir/hosts"))"
      # Root daemons, no cgroups, no accounting: the least a test cluster needs.
      echo "SlurmUser=root"
      echo "SlurmdUser=root"
      echo "AuthType=auth/munge"
      echo "AuthInfo=socket=$dir/munge/socket"
      echo "CredType=cred/munge"
      echo "StateSaveLocation=$dir/slurm/state"
      # One file system for every host: each node's files apart (%n: the node).
      echo "SlurmdSpoolDir=$dir/slurm/spool-%n"
      echo "TmpFS=$dir/slurm/tmp-%n"
      echo "SlurmctldPidFile=$dir/slurm/slurmctld.pid"
      echo "SlurmdPidFile=$dir/slurm/slurmd-%n.pid"
      echo "SlurmctldLogFile=$dir/slurm/slurmctld.log"
      echo "SlurmdLogFile=$dir/slurm/slurmd-%n.log"
      echo "ProctrackType=proctrack/linuxproc"
      echo "TaskPlugin=task/none"
      # Open MPI's ranks find each other through PMIx, as most clusters set it.
      echo "MpiDefault=pmix"
      echo "ReturnToService=2"
      echo "SchedulerType=sched/builtin"
      echo "SelectType=select/cons_tres"
      echo "SelectTypeParameters=CR_Core"
      echo "JobAcctGatherType=jobacct_gather/none"
      echo "AccountingStorageType=accounting_storage/none"
      while read -r name address; do
        mkdir -p "$dir/slurm/spool-$name" "$dir/slurm/tmp-$name"
        echo "NodeName=$name NodeAddr=$address CPUs=2 State=UNKNOWN"
      done <"$dir/hosts"
      echo "PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4"
    } >"$dir/slurm/slurm.conf"
    "$self" on "$dir" h0 slurmctld
    while read -r name _; do "$self" on "$dir" "$name" slurmd -N "$name"; done <"$dir/hosts"
    # Ready when every node is idle.
    for _ in $(seq 300); do
      states=$("$self" on "$dir" h0 sinfo -h -N -o %T 2>/dev/null | sort -u | tr '\n' ' ')
      [[ $states == "idle " ]] && exit 0
      sleep 0.1
    done
    echo "cluster.sh: Slurm's nodes are not idle after 30 s (states: $states; logs in $dir/slurm)" >&2
    exit 1
    ;;
  link)
    [[ $# -eq 2 && ( $2 == up || $2 == down ) ]] || usage
    ip -n "$(ns "h$(host_index "$1")")" link set eth0 "$2"
    ;;
  down)
    [[ -f $dir/id ]] || exit 0
    [[ -f $dir/switch.pid ]] && kill "$(cat "$dir/switch.pid")" 2>/dev/null || true
    [[ -f $dir/munge/pid ]] && kill "$(cat "$dir/munge/pid")" 2>/dev/null || true
    for name in $(ip netns list | awk '{print $1}' | grep "^dtb$(cat "$dir/id")-" || true); do
      # Whatever still runs in a host goes with it, children forked meanwhile too.
      for _ in 1 2 3 4 5 6 7 8 9 10; do
        pids=$(ip netns pids "$name" 2>/dev/null || true)
        [[ -z $pids ]] && break
        kill -9 $pids 2>/dev/null || true
        sleep 0.1
      done
      ip netns delete "$name"
    done
    rm -f "$dir/id" "$dir/switch.sock" "$dir/switch.pid"
    ;;
  *) usage ;;
esac
