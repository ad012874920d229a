// Passwords in URLs never reach what dtbench prints or stores.
#include "log/redact.h"

#include <gtest/gtest.h>

namespace dtb::core {
namespace {

TEST(RedactSecrets, HidesThePasswordOfAUrl) {
  EXPECT_EQ(redactSecrets("redis://user:s3cret@db.example:6379"), "redis://user:***@db.example:6379");
  EXPECT_EQ(redactSecrets("redis://:s3cret@10.0.0.1:6379"), "redis://:***@10.0.0.1:6379");
  EXPECT_EQ(redactSecrets("a p@ss:w0rd with '@' in it: redis://u:p@ss@h:1"),
            "a p@ss:w0rd with '@' in it: redis://u:***@h:1");
  // A '/' a user did not percent-encode is still part of the password.
  EXPECT_EQ(redactSecrets("redis://u:pa/ss@h:1 and on"), "redis://u:***@h:1 and on");
  EXPECT_EQ(redactSecrets("\"redis://:a/b/c@h\""), "\"redis://:***@h\"");
}

TEST(RedactSecrets, FindsEveryUrlInAText) {
  const std::string matrix =
      "rendezvous_store = [\"redis://:one@h1:6379\", \"redis://admin:two@h2\"]\n"
      "# cannot reach the Redis server at redis://:one@h1:6379: refused\n";
  const std::string shown = redactSecrets(matrix);
  EXPECT_EQ(shown.find("one"), std::string::npos) << shown;
  EXPECT_EQ(shown.find("two"), std::string::npos) << shown;
  EXPECT_NE(shown.find("redis://admin:***@h2"), std::string::npos) << shown;
}

TEST(RedactSecrets, LeavesTextWithoutPasswordsAlone) {
  for (const std::string text : {"redis://127.0.0.1:6379", "redis://user@host:6379", "no url: a:b@c",
                                 "http://host/path?q=a:b@c", "redis://:***@h:1", ""}) {
    EXPECT_EQ(redactSecrets(text), text);
  }
}

}  // namespace
}  // namespace dtb::core
