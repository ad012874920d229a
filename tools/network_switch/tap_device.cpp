#include "tap_device.h"

#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace dtb::netswitch {
namespace {

[[noreturn]] void fail(const std::string& name, const std::string& what) {
  throw std::runtime_error("TAP device '" + name + "': " + what + ": " + std::strerror(errno));
}

}  // namespace

TapDevice::TapDevice(const std::string& name, int mtu) : name_(name) {
  if (name.size() >= IFNAMSIZ)
    throw std::runtime_error("TAP device '" + name + "': name longer than 15 characters");
  fd_ = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
  if (fd_ < 0) fail(name, "cannot open /dev/net/tun");
  ifreq request{};
  std::strncpy(request.ifr_name, name.c_str(), IFNAMSIZ - 1);
  request.ifr_flags = IFF_TAP | IFF_NO_PI;  // bare Ethernet frames, no packet-info prefix
  if (ioctl(fd_, TUNSETIFF, &request) < 0) {
    close(fd_);
    fail(name, "cannot make it (root or CAP_NET_ADMIN needed)");
  }
  // The MTU is set through any socket of the namespace the device is in.
  const int control = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  request.ifr_mtu = mtu;
  const bool set = control >= 0 && ioctl(control, SIOCSIFMTU, &request) == 0;
  if (control >= 0) close(control);
  if (!set) {
    close(fd_);
    fail(name, "cannot set its MTU to " + std::to_string(mtu));
  }
}

TapDevice::~TapDevice() {
  if (fd_ >= 0) close(fd_);
}

}  // namespace dtb::netswitch
