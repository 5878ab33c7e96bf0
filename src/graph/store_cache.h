// What the graph keeps in memory per store state and shares across the
// connections of a process: built once per database (PageStore::
// StoreIdentity), key (source, scope) and store generation (ChangeLog),
// rebuilt when a write moves the generation. Concurrent readers of a state
// not built yet wait for one build instead of each making its own. A store
// that keeps no change log gets a fresh build on every call.
#pragma once

#include <condition_variable>
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
  struct Slot {
    std::mutex mu;
    std::condition_variable built;
    bool building = false;
    int64_t generation = -1;
    std::shared_ptr<const T> value;
  };
  static std::mutex mu;
  static std::map<std::pair<std::string, std::string>, std::shared_ptr<Slot>> cache;
  std::shared_ptr<Slot> slot;
  {
    std::lock_guard<std::mutex> lock(mu);
    auto& s = cache[std::make_pair(store.StoreIdentity(), key)];
    if (!s) {
      if (cache.size() > 64) {  // stores come and go (tests, migrations): keep the cache small
        for (auto it = cache.begin(); it != cache.end();) it = it->second.use_count() == 1 ? cache.erase(it) : std::next(it);
      }
      s = std::make_shared<Slot>();
    }
    slot = s;
  }
  std::unique_lock<std::mutex> lock(slot->mu);
  for (;;) {
    if (slot->value && slot->generation >= generation) return slot->value;
    if (!slot->building) break;
    slot->built.wait(lock);
  }
  slot->building = true;
  lock.unlock();
  Result<std::shared_ptr<const T>> value = build();
  lock.lock();
  slot->building = false;
  if (value.ok() && generation >= slot->generation) {
    slot->value = *value;
    slot->generation = generation;
  }
  slot->built.notify_all();
  return value;
}

}  // namespace engram::graph
