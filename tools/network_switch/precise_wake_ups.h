// What the switch asks of the machine so that a frame due at time t leaves
// at t. Its delays are hundreds of microseconds to milliseconds, and three
// things of the machine's own add as much: the kernel's timer slack (50 us
// by default), the switch waiting behind the hosts' processes for a CPU,
// and, on a virtual machine, a CPU that has sat idle for a millisecond
// halting into the hypervisor, whence it takes hundreds of microseconds to
// wake (measured on a 2-core VM: a 64-byte TCP round trip on a 2 ms link
// took 670 us more than 4 ms, and 263 us more with the CPUs held awake).
#pragma once

namespace dtb::netswitch {

// Timer slack of 1 ns; real-time scheduling (SCHED_FIFO) where allowed;
// and a PM QoS request of 0 us on /dev/cpu_dma_latency, which keeps every
// CPU polling instead of halting when idle, where the cpuidle driver
// honours it (haltpoll, intel_idle, acpi_idle), for as long as the switch
// lives (the kernel drops the request when the process ends). Each one this
// process may not have is said on stderr: latency then varies with load
// and idle time.
void askForPreciseWakeUps();

// Where no cpuidle driver runs (/sys/devices/system/cpu/cpuidle/current_driver
// reads "none": an idle CPU halts whatever PM QoS asks, as on a Firecracker
// VM), the switch keeps the CPUs awake itself while the network is shaped:
// one thread a CPU spinning at SCHED_IDLE, the lowest priority there is,
// which every host process preempts at once (the kernel's "idle=poll").
// Unshaped, they sleep: the hosts' processes then have the machine as it is
// (Open MPI's yielding ranks over srun lost collectives to spinners that ran
// all the time). Made before the switch turns real-time, so that they start
// at an ordinary policy and drop to SCHED_IDLE before they spin.
class IdleSpinners {
 public:
  IdleSpinners();
  // Spin while `shaped`; sleep otherwise.
  void spinWhile(bool shaped);

 private:
  bool made_ = false;
};

}  // namespace dtb::netswitch
