#include "client/export_writer.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pruner {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string ReadAll(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

class ExportWriterTest : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           absl::StrCat("pruner_export_test_", getpid(), "_",
                        testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::filesystem::path dir_;
};

TEST(CheckExportPathTest, RelativePathsAreFine) {
  for (const char* path : {"task03_dense.cc", "cuda/task03.cu", "..hidden.cc", "a..b/c.cc",
                           "./task.cc"}) {
    EXPECT_TRUE(CheckExportPath(path).ok()) << path;
  }
}

TEST(CheckExportPathTest, EscapesAreRefusedByName) {
  for (const char* path : {"/etc/passwd", "../evil.cc", "a/../../evil.cc", "a/..", "..",
                           "manifest.json", "./manifest.json", ""}) {
    absl::Status status = CheckExportPath(path);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << path;
    EXPECT_THAT(status.message(), HasSubstr(absl::StrCat("'", path, "'")));
  }
  EXPECT_FALSE(CheckExportPath(std::string("ok\0/../x", 8)).ok());
}

TEST_F(ExportWriterTest, WritesFilesAndManifest) {
  v1::ExportJobReply reply;
  v1::ExportedFile* dense = reply.add_files();
  dense->set_path("task00_dense.cc");
  dense->set_content("// dense\nvoid kernel() {}\n");
  v1::ExportedFile* nested = reply.add_files();
  nested->set_path("cuda/task01_softmax.cu");
  nested->set_content("__global__ void k() {}\n");
  reply.set_manifest_json(R"({"job": 7})");

  auto written = WriteExport(reply, dir_.string());
  ASSERT_TRUE(written.ok()) << written.status();
  EXPECT_THAT(*written, ElementsAre((dir_ / "task00_dense.cc").string(),
                                    (dir_ / "cuda/task01_softmax.cu").string(),
                                    (dir_ / "manifest.json").string()));
  EXPECT_EQ(ReadAll(dir_ / "task00_dense.cc"), dense->content());
  EXPECT_EQ(ReadAll(dir_ / "cuda/task01_softmax.cu"), nested->content());
  EXPECT_EQ(ReadAll(dir_ / "manifest.json"), R"({"job": 7})");
}

TEST_F(ExportWriterTest, OneBadPathWritesNothing) {
  v1::ExportJobReply reply;
  reply.add_files()->set_path("task00_dense.cc");
  reply.add_files()->set_path("../../outside.cc");
  auto written = WriteExport(reply, dir_.string());
  ASSERT_FALSE(written.ok());
  EXPECT_THAT(written.status().message(), HasSubstr("../../outside.cc"));
  EXPECT_FALSE(std::filesystem::exists(dir_));
  EXPECT_FALSE(std::filesystem::exists(dir_.parent_path().parent_path() / "outside.cc"));
}

TEST_F(ExportWriterTest, DuplicatePathsAreRefused) {
  v1::ExportJobReply reply;
  reply.add_files()->set_path("task00.cc");
  reply.add_files()->set_path("./task00.cc");
  auto written = WriteExport(reply, dir_.string());
  ASSERT_FALSE(written.ok());
  EXPECT_THAT(written.status().message(), HasSubstr("twice"));
}

}  // namespace
}  // namespace pruner
