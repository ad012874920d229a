#include "log/redact.h"

namespace dtb::core {

std::string redactSecrets(std::string text) {
  for (size_t scheme = text.find("://"); scheme != std::string::npos; scheme = text.find("://", scheme + 3)) {
    const size_t start = scheme + 3;
    // The userinfo ends at the last '@' before whitespace or a quote: a
    // password may hold a '/' that was not percent-encoded. (A path holding
    // an '@' is redacted too: better too much than a password shown.)
    size_t end = start;
    while (end < text.size() && text[end] != '"' && text[end] != '\'' && text[end] != ' ' &&
           text[end] != '\n' && text[end] != '\t') {
      ++end;
    }
    const size_t at = end == start ? std::string::npos : text.rfind('@', end - 1);
    if (at == std::string::npos || at < start) continue;
    const size_t colon = text.find(':', start);
    if (colon == std::string::npos || colon > at) continue;  // a user name without a password
    if (text.find('/', start) < colon) continue;             // that ':' is not in a userinfo
    if (at - colon - 1 == 3 && text.compare(colon + 1, 3, "***") == 0) continue;  // redacted already
    text.replace(colon + 1, at - colon - 1, "***");
  }
  return text;
}

}  // namespace dtb::core
