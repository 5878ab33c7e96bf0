// What the graph keeps in memory per store state: built once for a store
// instance (PageStore::instance_id), a key (source, scope) and the store's
// generation (ChangeLog), rebuilt when a write moves the generation. A store
// that keeps no change log gets a fresh build on every call.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "engram/status.h"
#include "engram/store/change_log.h"
#include "engram/store/page_store.h"

namespace engram::graph {

template <typename T>
Result<std::shared_ptr<const T>> CachedForStore(PageStore& store, const std::string& key,
                                                const std::function<Result<std::shared_ptr<const T>>()>& build) {
  auto* log = dynamic_cast<ChangeLog*>(&store);
  if (log == nullptr) return build();
  ENGRAM_ASSIGN_OR_RETURN(const int64_t generation, log->Generation());
  struct Cached {
    int64_t generation = -1;
    std::shared_ptr<const T> value;
  };
  static std::mutex mu;
  static std::map<std::pair<uint64_t, std::string>, Cached> cache;
  const auto at = std::make_pair(store.instance_id(), key);
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = cache.find(at);
    if (it != cache.end() && it->second.generation == generation) return it->second.value;
  }
  ENGRAM_ASSIGN_OR_RETURN(std::shared_ptr<const T> value, build());
  std::lock_guard<std::mutex> lock(mu);
  if (cache.size() > 64) cache.clear();  // stores come and go (tests, migrations): keep the cache small
  cache[at] = {generation, value};
  return value;
}

}  // namespace engram::graph
