// Secrets in URLs kept out of what dtbench prints and stores: the password
// of "redis://user:password@host:port" (or "redis://:password@host") becomes
// "***" in errors, the store's run parameters, configuration keys and the
// matrix text it keeps. The run itself still gets the real URL, through its
// spec file in a directory only its user can read.
#pragma once

#include <string>

namespace dtb::core {

// `text` with the password of every "scheme://user:password@" replaced by ***.
std::string redactSecrets(std::string text);

}  // namespace dtb::core
