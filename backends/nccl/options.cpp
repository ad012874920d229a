#include "options.h"

#include <map>

#include "dtbench/plugin.hpp"

namespace dtb::backend::nccl {
namespace {

std::optional<std::string> lookup(const std::map<std::string, std::string>& names, const std::string& choice,
                                  const char* what) {
  if (choice == "auto") return std::nullopt;
  const auto it = names.find(choice);
  if (it == names.end())
    throw Error(DTB_STATUS_INVALID_ARGUMENT, std::string("unknown ") + what + " \"" + choice + "\"");
  return it->second;
}

}  // namespace

Options readOptions(const dtb_host_t* host) {
  Options o;
  int32_t group = 0, busy = 0;
  int64_t maxCtas = 0;
  const char* algorithm = nullptr;
  const char* protocol = nullptr;
  check(host->config_get_bool(host->ctx, "group_calls", &group), "group_calls");
  check(host->config_get_int(host->ctx, "max_ctas", &maxCtas), "max_ctas");
  check(host->config_get_bool(host->ctx, "busy_time", &busy), "busy_time");
  check(host->config_get_string(host->ctx, "algorithm", &algorithm), "algorithm");
  check(host->config_get_string(host->ctx, "protocol", &protocol), "protocol");
  o.groupCalls = group != 0;
  o.busyTime = busy != 0;
  o.maxCtas = static_cast<int>(maxCtas);
  o.algorithm = algorithm;
  o.protocol = protocol;
  algorithmEnvironment(o.algorithm);  // fail at create, not at the first collective
  protocolEnvironment(o.protocol);
  return o;
}

std::optional<std::string> algorithmEnvironment(const std::string& algorithm) {
  static const std::map<std::string, std::string> kNames = {
      {"ring", "Ring"}, {"tree", "Tree"}, {"nvls", "NVLS"}, {"nvls_tree", "NVLSTree"}, {"pat", "PAT"}};
  return lookup(kNames, algorithm, "NCCL algorithm");
}

std::optional<std::string> protocolEnvironment(const std::string& protocol) {
  static const std::map<std::string, std::string> kNames = {
      {"simple", "Simple"}, {"ll", "LL"}, {"ll128", "LL128"}};
  return lookup(kNames, protocol, "NCCL protocol");
}

}  // namespace dtb::backend::nccl
