// The one call into dtbench-simgrid.so, the module that holds SimGrid. It
// is a module of its own, loaded only by the child process a simulation
// runs in (flow_simulation.h), because libsimgrid defines MPI's symbols
// (SimGrid's SMPI): linked into dtbench, it would take MPI_Init from the
// MPI backend. Internal to one build of dtbench (C++ types on both sides),
// not a plugin ABI.
//
// SimGrid's model: CM02 (max-min fair sharing of each link among the flows
// crossing it) with no TCP window, no cross traffic and no correction
// factors, so that its terms are the alpha-beta model's and, where no link
// is shared, it gives the closed forms of collective_cost.h back.
#pragma once

#include <string>
#include <vector>

#include "projection/collective_flows.h"
#include "projection/flow_platform.h"

// Each schedule's seconds on `platform`, one after another on an idle
// network; on failure false and `*error` says why. Once per process:
// SimGrid keeps one engine per process.
using DtbSimgridTimeFn = bool(const dtb::core::FlowPlatform* platform,
                              const std::vector<dtb::core::FlowSchedule>* schedules,
                              std::vector<double>* seconds, std::string* error);
constexpr const char* kDtbSimgridTimeSymbol = "dtbench_simgrid_time";
constexpr const char* kDtbSimgridModuleName = "dtbench-simgrid.so";
