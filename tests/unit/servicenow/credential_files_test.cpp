// SPDX-License-Identifier: Apache-2.0
// CredentialFiles: reading a rotated Secret again. What changes becomes current and is
// registered with the redactor; what cannot be read keeps the value in use; the log names the
// key and the file, never the value.
#include "snowcar/servicenow/credential_files.h"

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#include "snowcar/common/log.h"
#include "snowcar/common/redact.h"
#include "support/temp_dir.h"

namespace snowcar::servicenow {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::trunc) << text;
}

// Log lines written while it lives.
class CapturedLog {
 public:
  explicit CapturedLog(const std::string& path) : path_(path) {
    fd_ = ::open(path.c_str(), O_CREAT | O_TRUNC | O_WRONLY, 0600);
    log::SetFd(fd_);
  }
  ~CapturedLog() {
    log::SetFd(2);
    ::close(fd_);
  }
  std::string Text() const {
    std::ifstream in(path_);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }

 private:
  std::string path_;
  int fd_ = -1;
};

class CredentialFilesTest : public ::testing::Test {
 protected:
  void TearDown() override { redact::ClearForTest(); }
  testsupport::TempDir dir_{"credential-files"};
};

TEST_F(CredentialFilesTest, RereadTakesTheRotatedValueAndMasksIt) {
  const std::string password = dir_.File("password");
  const std::string user = dir_.File("username");
  WriteFile(password, "old-password-1\n");
  WriteFile(user, "svc-user\n");
  CredentialFiles files(Credentials{"svc-user", "old-password-1", "", ""},
                        {{"snow.auth.password", password}, {"snow.auth.username", user}});
  ASSERT_TRUE(files.HasFiles());

  CapturedLog log(dir_.File("log"));
  EXPECT_FALSE(files.Reread()) << "nothing changed yet";
  WriteFile(password, "new-password-2\r\n");
  EXPECT_TRUE(files.Reread());
  EXPECT_EQ(files.Current().password, "new-password-2");
  EXPECT_EQ(files.Current().username, "svc-user");
  EXPECT_EQ(files.rereads(), 2);

  EXPECT_EQ(redact::Mask("pw new-password-2"), "pw [redacted]");
  EXPECT_EQ(redact::Mask("svc-user:new-password-2"), "[redacted]");
  const std::string text = log.Text();
  EXPECT_THAT(text, HasSubstr("snow.credentials.reread"));
  EXPECT_THAT(text, HasSubstr("snow.auth.password"));
  EXPECT_THAT(text, HasSubstr(password));
  EXPECT_THAT(text, HasSubstr("\"changed\":true"));
  EXPECT_THAT(text, Not(HasSubstr("new-password-2")));
  EXPECT_THAT(text, Not(HasSubstr("old-password-1")));
}

TEST_F(CredentialFilesTest, AFileThatCannotBeReadKeepsTheValueInUse) {
  const std::string secret = dir_.File("secret");
  WriteFile(secret, "client-secret-1\n");
  CredentialFiles files(Credentials{"", "", "id", "client-secret-1"},
                        {{"snow.oauth.client.secret", secret}});
  CapturedLog log(dir_.File("log"));

  ASSERT_EQ(::unlink(secret.c_str()), 0);  // mid-rotation
  EXPECT_FALSE(files.Reread());
  EXPECT_EQ(files.Current().client_secret, "client-secret-1");
  EXPECT_THAT(log.Text(), HasSubstr("snow.credentials.reread_failed"));
  EXPECT_THAT(log.Text(), HasSubstr(secret));

  ASSERT_EQ(::symlink("/dev/zero", secret.c_str()), 0);  // bounded: not read for ever
  EXPECT_FALSE(files.Reread());
  EXPECT_EQ(files.Current().client_secret, "client-secret-1");
  EXPECT_THAT(log.Text(), HasSubstr("more than 1 MiB"));
  EXPECT_THAT(log.Text(), Not(HasSubstr("client-secret-1")));
}

TEST_F(CredentialFilesTest, OnlyCredentialKeysAreRead) {
  const std::string other = dir_.File("other");
  WriteFile(other, "whatever\n");
  CredentialFiles files(Credentials{"u", "p-1234", "", ""}, {{"snow.url", other}});
  EXPECT_FALSE(files.HasFiles());
  EXPECT_FALSE(files.Reread());
  EXPECT_EQ(files.Current().password, "p-1234");
}

TEST_F(CredentialFilesTest, WithCredentialsReplacesTheFourValues) {
  ClientOptions o;
  o.username = "a";
  o.password = "b";
  o.client_id = "c";
  o.client_secret = "d";
  o.scope = "kept";
  const ClientOptions changed = WithCredentials(o, Credentials{"w", "x", "y", "z"});
  EXPECT_EQ(changed.username, "w");
  EXPECT_EQ(changed.password, "x");
  EXPECT_EQ(changed.client_id, "y");
  EXPECT_EQ(changed.client_secret, "z");
  EXPECT_EQ(changed.scope, "kept");
  EXPECT_EQ(CredentialsOf(changed).password, "x");
}

}  // namespace
}  // namespace snowcar::servicenow
