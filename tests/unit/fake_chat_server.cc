#include "fake_chat_server.h"

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

namespace engram::testing {

struct FakeChatServer::State {
  Handler handler;
  httplib::Server server;
  std::thread thread;
  int port = 0;
  std::atomic<int> requests{0};
  mutable std::mutex mu;
  std::string last_prompt;
};

FakeChatServer::FakeChatServer(Handler handler) : s_(std::make_unique<State>()) {
  s_->handler = std::move(handler);
  s_->server.Post("/v1/chat/completions", [s = s_.get()](const httplib::Request& req, httplib::Response& res) {
    const nlohmann::json body = nlohmann::json::parse(req.body, nullptr, false);
    {
      std::lock_guard<std::mutex> lock(s->mu);
      const nlohmann::json* messages = body.is_object() && body.contains("messages") ? &body["messages"] : nullptr;
      if (messages != nullptr && messages->is_array() && !messages->empty()) {
        s->last_prompt = messages->back().value("content", "");
      }
    }
    s->handler(body, res);
    ++s->requests;
  });
  s_->port = s_->server.bind_to_any_port("127.0.0.1");
  s_->thread = std::thread([s = s_.get()] { s->server.listen_after_bind(); });
  while (!s_->server.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

FakeChatServer::~FakeChatServer() {
  s_->server.stop();
  s_->thread.join();
}

std::string FakeChatServer::url() const { return "http://127.0.0.1:" + std::to_string(s_->port) + "/v1"; }

int FakeChatServer::requests() const { return s_->requests.load(); }

std::string FakeChatServer::last_prompt() const {
  std::lock_guard<std::mutex> lock(s_->mu);
  return s_->last_prompt;
}

void FakeChatServer::Reply(httplib::Response& res, const std::string& content) {
  const nlohmann::json body = {{"choices", {{{"message", {{"role", "assistant"}, {"content", content}}}}}}};
  res.set_content(body.dump(), "application/json");
}

}  // namespace engram::testing
