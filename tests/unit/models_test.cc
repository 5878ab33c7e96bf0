// Installing models: `pull` against a loopback fake of the Hugging Face hub
// (HEAD with X-Linked-Size / X-Linked-Etag, Range requests), including an
// interrupted download that resumes and a corrupted one that is refused.
#include "ops/models.h"

#include <httplib.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "common/hash.h"

namespace engram::ops {
namespace {

namespace fs = std::filesystem;

fs::path Fixture() { return fs::path(ENGRAM_SOURCE_DIR) / "tests" / "fixtures" / "models" / "tiny-bge-zh"; }

std::string Slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Serves tiny-bge-zh's files as BAAI/bge-small-zh-v1.5.
class FakeHub {
 public:
  FakeHub() {
    const std::string prefix = "/BAAI/bge-small-zh-v1.5/resolve/main/";
    auto file_of = [prefix](const std::string& path) -> fs::path {
      if (path.rfind(prefix, 0) != 0) return {};
      return Fixture() / path.substr(prefix.size());
    };
    server_.Get(R"(/.*)", [this, file_of](const httplib::Request& req, httplib::Response& res) {
      fs::path f = file_of(req.path);
      if (f.empty() || !fs::exists(f)) {
        res.status = 404;
        return;
      }
      std::string body = Slurp(f);
      // HEAD reaches this handler too (cpp-httplib drops the body): the hub's headers.
      res.set_header("X-Linked-Size", std::to_string(body.size()));
      std::string sha = common::Sha256Hex(body);
      if (lie_about_sha_) sha[0] = sha[0] == 'a' ? 'b' : 'a';
      if (f.extension() == ".safetensors") res.set_header("X-Linked-Etag", "\"" + sha + "\"");
      if (req.method == "HEAD") {
        res.set_content(body, "application/octet-stream");
        return;
      }
      // cpp-httplib answers Range requests itself (206 with the asked-for slice).
      if (req.has_header("Range")) ranged_ = true;
      const std::string& part = body;
      if (f.extension() == ".safetensors" && cut_next_.exchange(false)) {
        // Send half, then drop the connection.
        std::string half = part.substr(0, part.size() / 2);
        res.set_content_provider(part.size(), "application/octet-stream",
                                 [half](size_t offset, size_t, httplib::DataSink& sink) {
                                   if (offset < half.size()) return sink.write(half.data() + offset, half.size() - offset);
                                   return false;
                                 });
        return;
      }
      res.set_content(part, "application/octet-stream");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~FakeHub() {
    server_.stop();
    thread_.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::atomic<bool> cut_next_{false};
  std::atomic<bool> lie_about_sha_{false};
  std::atomic<bool> ranged_{false};

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
};

class PullTest : public ::testing::Test {
 protected:
  void SetUp() override {
    home_ = fs::temp_directory_path() / ("engram-models-" + std::to_string(::getpid()));
    fs::remove_all(home_);
    ::setenv("ENGRAM_MODELS", home_.c_str(), 1);
  }
  void TearDown() override {
    fs::remove_all(home_);
    ::unsetenv("ENGRAM_MODELS");
  }
  fs::path home_;
};

TEST_F(PullTest, DownloadsVerifiesAndResumes) {
  FakeHub hub;
  hub.cut_next_ = true;
  PullOptions o;
  o.endpoint = hub.url();
  auto first = PullModel("bge-small-zh-v1.5", o);
  ASSERT_FALSE(first.ok());  // the connection dropped half-way
  EXPECT_NE(first.status().message().find("resume"), std::string::npos) << first.status().message();
  const fs::path dest = home_ / "bge-small-zh-v1.5";
  EXPECT_TRUE(fs::exists(dest / "model.safetensors.part"));
  EXPECT_FALSE(fs::exists(dest / "model.safetensors"));
  auto second = PullModel("bge-small-zh-v1.5", o);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_TRUE(hub.ranged_);  // resumed with a Range request
  EXPECT_EQ(Slurp(dest / "model.safetensors"), Slurp(Fixture() / "model.safetensors"));
  EXPECT_EQ(Slurp(dest / "vocab.txt"), Slurp(Fixture() / "vocab.txt"));
  EXPECT_FALSE(fs::exists(dest / "tokenizer.json"));  // optional, absent upstream
  auto dir = ResolveModelDir("bge-small-zh-v1.5");
  ASSERT_TRUE(dir.ok());
  EXPECT_EQ(*dir, dest);
}

TEST_F(PullTest, RefusesAFileWhoseHashDiffers) {
  FakeHub hub;
  hub.lie_about_sha_ = true;
  PullOptions o;
  o.endpoint = hub.url();
  auto r = PullModel("bge-small-zh-v1.5", o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kCorruption);
  EXPECT_NE(r.status().message().find("sha256"), std::string::npos);
  EXPECT_FALSE(fs::exists(home_ / "bge-small-zh-v1.5" / "model.safetensors"));
}

TEST_F(PullTest, UnknownNamesAndMissingModels) {
  EXPECT_EQ(PullModel("no-such-model", {}).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(PullModel("../x", {}).status().code(), StatusCode::kInvalidArgument);
  auto missing = ResolveModelDir("bge-small-en-v1.5");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("engram model pull"), std::string::npos);
}

// provider and model change; the section's other settings and every other
// section stay, and using a model twice does not pile up lines.
TEST(UseModel, ReplacesProviderAndModelOnly) {
  fs::path dir = fs::temp_directory_path() / ("engram-use-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::path config = dir / "config.toml";
  std::ofstream(config) << "[search]\nlimit = 7\n\n[embedding]\nprovider = \"hash\"\nmodel=\"old\"\nprecision = "
                            "\"bf16\"\nthreads = 1\n\n[store]\nbusy_timeout_ms = 10\n";
  ASSERT_TRUE(UseModel(config, Fixture().string()).ok());
  ASSERT_TRUE(UseModel(config, Fixture().string()).ok());
  std::string text = Slurp(config);
  EXPECT_NE(text.find("precision = \"bf16\""), std::string::npos) << text;
  EXPECT_NE(text.find("threads = 1"), std::string::npos) << text;
  EXPECT_EQ(text.find("\"old\""), std::string::npos) << text;
  EXPECT_EQ(text.find("provider"), text.rfind("provider")) << text;
  EXPECT_LT(text.find("[embedding]"), text.find("provider")) << text;
  EXPECT_LT(text.find("provider"), text.find("[store]")) << text;
  EXPECT_NE(text.find("limit = 7"), std::string::npos);
  EXPECT_NE(text.find("busy_timeout_ms = 10"), std::string::npos);
  EXPECT_EQ(text.find("\"hash\""), std::string::npos);
  EXPECT_NE(text.find("provider = \"bert\""), std::string::npos);
  EXPECT_FALSE(UseModel(config, "no-such-model").ok());
  fs::remove_all(dir);
}

}  // namespace
}  // namespace engram::ops
