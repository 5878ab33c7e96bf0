// Links, embeds and tags in a page's text, read the way Obsidian reads them,
// and the rule that picks the one page a written link reaches.
//
// What a page stores is a pure function of its own path and text: each link
// as written (slug form, relative paths made root-relative), never which page
// it reaches. Which page that is depends on the other pages, so it is decided
// when links are read (ChooseByName and the engine's backlink queries): a
// brain built fresh and one updated step by step answer the same.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "engram/page.h"
#include "engram/status.h"

namespace engram::text {

// The type of links to attachments (images, PDFs, audio… — any file that is
// neither Markdown nor a canvas). Their target is the file's path as written,
// not a slug; they never count as page links.
inline constexpr std::string_view kAttachmentLinkType = "attachment";

// The type of a link that nothing in the note types.
inline constexpr std::string_view kMentionsLinkType = "mentions";

// Collects a page's links and inline tags, line by line. Not thread-safe; one
// per page parse.
class PageRefCollector {
 public:
  // page_path: the page's source-relative path (relative links start there).
  explicit PageRefCollector(std::string_view page_path) : page_path_(page_path) {}

  // A body line outside fenced code: wiki links [[X]], embeds ![[X]], Markdown
  // links [t](X.md) and [t](<X Y.md>), image embeds ![a](x.png), Dataview
  // inline fields "key:: [[X]]" / "[key:: [[X]]]" (typed by the key), and tags
  // #tag, #nested/tag, #中文标签 (not in inline code, links or URLs; not
  // purely numeric). Links elsewhere in the line are "mentions".
  void ScanLine(std::string_view line);

  // A frontmatter field: every [[wiki link]] in a string value (or in each
  // string of a list) is a link typed by the key; plain text is not a link.
  void AddFieldValue(std::string_view key, std::string_view value);

  // A file named by its path from the vault root, as a canvas's file card
  // names one: a note (.md) or canvas is a page link ("mentions"), an image,
  // PDF or other attachment an attachment link; any other file is nothing.
  void AddFile(std::string_view path, std::string_view context);

  // A frontmatter tag: a leading '#' is dropped ("#tag" is "tag").
  void AddFrontmatterTag(std::string_view tag);

  std::vector<PageLink> TakeLinks() { return std::move(links_); }
  // Tags in the order first written, one per case-insensitive spelling (the
  // first written case is kept).
  std::vector<std::string> TakeTags() { return std::move(tags_); }

 private:
  // target as written (a Markdown link's already percent-decoded); markdown:
  // from [t](target), which names a file, so a page only with ".md".
  void AddLink(std::string target, bool markdown, std::string label, std::string type, std::string_view context);
  void AddTag(std::string tag);
  // Scans text for links (and tags when tags is set), typing them as type.
  void ScanText(std::string_view text, std::string_view type, bool tags, std::string_view context);

  std::string page_path_;
  std::vector<PageLink> links_;
  std::set<std::string> seen_links_;
  std::vector<std::string> tags_;
  std::set<std::string> seen_tags_;
};

// The tag a user wrote ("#Project/Alpha", "project/alpha"), without '#';
// "" when it is not a tag (empty, purely numeric, characters Obsidian does
// not allow).
std::string NormalizeTag(std::string_view written);

// The type a field's name gives its links and facts: the name in lower case
// with spaces and dashes as '_' ("Works at" -> "works_at"), or the
// established type a known name maps to ("company", "公司" -> "works_at";
// "position", "职位" -> "role"); "**Company**" is read as "Company".
std::string FieldType(std::string_view key);

// The form tags are compared in: Unicode lower case. "#Parent" matches
// "parent" and "parent/child" (TagMatches).
std::string TagKey(std::string_view tag);
bool TagMatches(std::string_view tag, std::string_view wanted);

// Link resolution keys. PathKey("People/Zhang San.md") = "people/zhang-san"
// (the slug of the path, whatever the frontmatter says the page's slug is);
// FolderKey of the same = "people"; LinkName("people/zhang-san") =
// "zhang-san" (the file-name part, what name look-ups compare).
std::string PathKey(std::string_view path);
std::string FolderKey(std::string_view path);
std::string LinkName(std::string_view key);

// A page that may be the target of a link by name.
struct LinkCandidate {
  int64_t id = 0;
  std::string path_key;  // PathKey of its path
};

// Obsidian's last step, for a link target (slug form) no page's path or slug
// equals, neither from the vault root nor from the linking page's folder:
// among pages whose file name equals the target's last part and whose path
// ends with the whole target, the one in the linking page's folder
// (from_folder, a FolderKey), else the one with the shortest path (ties: the
// first path in byte order). candidates may hold other names; they are
// ignored. nullopt when none fits.
std::optional<int64_t> ChooseByName(std::string_view target, std::string_view from_folder,
                                    const std::vector<LinkCandidate>& candidates);

// Where a resolution looks pages up: the engine's SQL, or an index in memory
// (graph/link_graph.h). Each answers within one source.
struct LinkLookup {
  // The page whose PathKey is `key` (of several, the first path in byte order).
  std::function<Result<std::optional<int64_t>>(const std::string& key)> by_path_key;
  // The page whose slug is `slug`.
  std::function<Result<std::optional<int64_t>>(const std::string& slug)> by_slug;
  // The pages whose file-name key (LinkName of their PathKey) is `name`.
  std::function<Result<std::vector<LinkCandidate>>(const std::string& name)> by_name;
};

// The page a link target (slug form) written on a page in folder
// `from_folder` (a FolderKey) reaches, as Obsidian resolves it: 1. the path
// from the vault root, 2. a page's own slug, 3. the path from the linking
// page's folder, 4. by file name (ChooseByName). nullopt when none.
Result<std::optional<int64_t>> ResolveLinkTarget(const std::string& target, const std::string& from_folder,
                                                 const LinkLookup& lookup);

}  // namespace engram::text
