// The knowledge-collection contract: named collections of curated entries
// (the red-line knowledge service, src/kb), kept in the same store and the
// same transactions as pages.
//
// A collection has a name, the filterable fields it declares (with their
// types) and the embedder its vectors come from ("" while it has none: its
// similarity is then lexical). An entry is (id, text, source, meta, and its
// vector in a collection with an embedder): meta is a flat JSON object of
// strings, numbers and booleans, kept as the caller wrote it. Every entry
// also has a key: a positive integer unique in the store, fixed while the
// entry lives (a replaced entry keeps it), which the change log carries.
//
// Change log. Every write of an entry (put, replace, delete, and the delete
// of its collection) logs ChangeStream::kKbEntries with the entry's key in
// the writing transaction, so an index built beside the store catches up
// with ChangesSince (engram/store/change_log.h) and re-reads the keys with
// KbEntriesByKey: a key that comes back missing is an entry that is gone.
//
// Writes join the open Transaction when there is one (landing at its
// Commit); outside one each call commits alone, all of it or nothing.
//
// Errors: NotFound for an unknown collection, AlreadyExists for a second
// collection of a name, InvalidArgument for a bad name or field, IOError /
// Unavailable when the store cannot be read or written.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engram/status.h"

namespace engram {

enum class KbFieldType { kString, kNumber, kDate };

const char* KbFieldTypeName(KbFieldType type);  // "string", "number", "date"
std::optional<KbFieldType> ParseKbFieldType(std::string_view name);

struct KbField {
  std::string name;
  KbFieldType type = KbFieldType::kString;
  bool operator==(const KbField&) const = default;
};

struct KbCollection {
  std::string name;
  std::vector<KbField> fields;  // filterable meta fields ("source" is always filterable)
  std::string embedder;         // the model its vectors come from; "" = none (lexical)
  int dimension = 0;            // of those vectors; 0 = none
  std::string created_at;
  std::string created_by;
  // A folder of Markdown pages ("redline/", source-relative) the collection
  // is kept from: one entry per page, derived from the pages as stored, so
  // a page and its entry never disagree ("" = entries are written to it).
  std::string folder;
};

struct KbEntry {
  int64_t key = 0;         // set by the store
  std::string collection;  // the collection's name
  std::string id;
  std::string text;
  std::string source;
  std::string meta = "{}";  // a flat JSON object
  std::string updated_at;
  std::string updated_by;
  std::vector<float> vector;  // its embedding in a collection with an embedder; empty otherwise
};

struct KbCollectionStats {
  std::string name;
  int64_t entries = 0;
};

// A governed entry (the original's red_line_knowledge row): curated by
// editors, audited and released, versioned. uniq_id = md5(question); unique
// on (uniq_id, business_scene, version). Its latest version, while online,
// is an entry of its collection (id "{business_scene}_{uniq_id}_{version}"),
// written in the same transaction as the row.
struct GovernedEntry {
  int64_t id = 0;  // set by the store
  std::string uniq_id;
  std::string business_scene;
  std::string question;
  std::string answer;
  std::string metadata = "{}";  // a JSON object, as given
  std::string class_name;       // levels joined by '/'
  std::string class_no;
  std::string source;
  std::string type;
  std::string desc;
  int64_t version = 1;
  std::string status = "online";  // "online" or "offline"
  std::string editor, editor_id, auditor, auditor_id, releaser, releaser_id;
  std::string create_time, update_time;
  std::string collection;  // the collection it is searchable in
  bool latest = true;      // false once a newer version exists
};

// One governance change: who, when, what, and the row before and after (JSON).
struct KbAuditEntry {
  int64_t id = 0;
  std::string at;
  std::string who;
  std::string action;  // "create", "update", "online", "offline", "reindex"
  int64_t governed_id = 0;
  std::string before;  // "" when there was none
  std::string after;
};

class KbStore {
 public:
  virtual ~KbStore() = default;

  // Creates a collection. AlreadyExists when one of that name exists.
  virtual Status CreateKbCollection(const KbCollection& collection) = 0;
  // Every collection, by name. Cost: a scan of the (few) collection rows.
  virtual Result<std::vector<KbCollection>> KbCollections() = 0;
  // The named collection, or nothing.
  virtual Result<std::optional<KbCollection>> FindKbCollection(std::string_view name) = 0;
  // Deletes a collection and every entry of it (each logged). NotFound when
  // there is none of that name.
  virtual Status DropKbCollection(std::string_view name) = 0;
  // Entries per collection, by name.
  virtual Result<std::vector<KbCollectionStats>> KbCollectionStatistics() = 0;

  // Inserts the entries into their collection, replacing any of the same id
  // (which keeps its key); all of them land or none. Returns their keys, in
  // order. NotFound for an unknown collection.
  virtual Result<std::vector<int64_t>> PutKbEntries(const std::vector<KbEntry>& entries) = 0;
  // Deletes the entries of those ids from the collection; returns the ids
  // that existed (in the order asked), unknown ids are skipped. NotFound
  // for an unknown collection.
  virtual Result<std::vector<std::string>> DeleteKbEntries(std::string_view collection,
                                                           const std::vector<std::string>& ids) = 0;
  // The entries of those keys that exist, by ascending key (any collection).
  virtual Result<std::vector<KbEntry>> KbEntriesByKey(const std::vector<int64_t>& keys) = 0;
  // The collection's entries with a key above after_key, ascending, at most
  // limit of them (a keyset page: pass the last key back for the next).
  virtual Result<std::vector<KbEntry>> ScanKbEntries(std::string_view collection, int64_t after_key,
                                                     size_t limit) = 0;
  // The entry of that id in the collection, or nothing.
  virtual Result<std::optional<KbEntry>> FindKbEntry(std::string_view collection, std::string_view id) = 0;

  // Governed entries. InsertGoverned returns the new row's id
  // (AlreadyExists for a second (uniq_id, business_scene, version)).
  virtual Result<int64_t> InsertGoverned(const GovernedEntry& entry) = 0;
  // Rewrites the row of entry.id (NotFound when there is none).
  virtual Status UpdateGoverned(const GovernedEntry& entry) = 0;
  virtual Result<std::optional<GovernedEntry>> GetGoverned(int64_t id) = 0;
  // The latest version of (uniq_id, business_scene), or nothing.
  virtual Result<std::optional<GovernedEntry>> LatestGoverned(std::string_view uniq_id,
                                                              std::string_view business_scene) = 0;
  // Latest versions whose question contains word (online ones only when
  // online_only), by id, at most limit.
  virtual Result<std::vector<GovernedEntry>> FindGoverned(std::string_view word, bool online_only,
                                                          size_t limit) = 0;
  // Every row after after_id, ascending, at most limit (a keyset page).
  virtual Result<std::vector<GovernedEntry>> ScanGoverned(int64_t after_id, size_t limit) = 0;
  virtual Status AppendKbAudit(const KbAuditEntry& entry) = 0;
  // Newest first; governed_id 0 = every entry's changes.
  virtual Result<std::vector<KbAuditEntry>> KbAudit(int64_t governed_id, size_t limit) = 0;

 protected:
  KbStore() = default;
};

}  // namespace engram
