#include "text/canvas.h"

#include <algorithm>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <tuple>
#include <utility>

#include "common/json_limits.h"
#include "common/utf8.h"
#include "text/page_links.h"
#include "text/slug.h"

namespace engram::text {

namespace {

using Json = nlohmann::json;

constexpr std::string_view kCanvasExtension = ".canvas";

// More problems than this are counted, not listed: a damaged canvas with
// 10,000 bad nodes must not make 10,000 warnings.
constexpr size_t kMaxListedProblems = 5;

// Pieces joined by appends (GCC 12 warns, falsely, on "literal" + std::string).
std::string Cat(std::initializer_list<std::string_view> pieces) {
  std::string out;
  for (std::string_view p : pieces) out.append(p);
  return out;
}

// A JSON string's text, as the index may hold it: "\u0000" decodes to a NUL
// byte, which no page text carries.
std::string Text(const Json& v) {
  std::string s = v.get<std::string>();
  std::replace(s.begin(), s.end(), '\0', ' ');
  return s;
}

// The string field `key` of object `o`: set *out and return true when it is
// a string; false when it is absent or null (*wrong stays false) or of
// another type (*wrong set).
bool StringField(const Json& o, const char* key, std::string* out, bool* wrong) {
  *wrong = false;
  auto it = o.find(key);
  if (it == o.end() || it->is_null()) return false;
  if (!it->is_string()) {
    *wrong = true;
    return false;
  }
  *out = Text(*it);
  return true;
}

// "node 3 ('6f0ad84f44ce9c17')": where a problem is, in the user's terms.
std::string Where(const char* what, size_t index, const Json& item) {
  std::string at = std::string(what) + " " + std::to_string(index + 1);
  if (item.is_object()) {
    auto id = item.find("id");
    if (id != item.end() && id->is_string()) {
      std::string name = Text(*id);
      if (name.size() > 40) name.resize(40);
      if (!common::IsValidUtf8(name)) name = "…";
      at += " ('";
      at += name;
      at += "')";
    }
  }
  return at;
}

// Problems found while reading, listed up to kMaxListedProblems, then counted.
class Problems {
 public:
  void Add(std::string what) {
    if (listed_.size() < kMaxListedProblems) listed_.push_back(std::move(what));
    else ++more_;
  }
  void MoveTo(std::vector<std::string>* warnings) {
    for (const std::string& w : listed_) warnings->push_back(Cat({"canvas: ", w}));
    if (more_ > 0) {
      warnings->push_back(Cat({"canvas: ", std::to_string(more_), " more nodes or edges skipped or read partly"}));
    }
  }

 private:
  std::vector<std::string> listed_;
  size_t more_ = 0;
};

struct Card {
  double y = 0, x = 0;
  size_t index = 0;      // in the file: breaks ties, so the order is total
  std::string text;      // what the card adds to the page's text ("" for file nodes)
  bool markdown = false; // a text node: links and tags are read from it
  std::string file;      // a file node's path
};

// Reads one node into *card; false when it adds nothing (a reason is noted
// in problems when the node is malformed).
bool ReadNode(const Json& node, size_t index, Problems* problems, Card* card) {
  if (!node.is_object()) {
    problems->Add(Cat({"node ", std::to_string(index + 1), " is not an object; skipped"}));
    return false;
  }
  card->index = index;
  std::string type;
  bool wrong = false;
  if (!StringField(node, "type", &type, &wrong)) {
    problems->Add(Where("node", index, node) + " has no \"type\" string; skipped");
    return false;
  }
  // Position orders the text; one missing or of the wrong type only moves the card to 0.
  for (auto [key, out] : {std::pair<const char*, double*>{"x", &card->x}, {"y", &card->y}}) {
    auto it = node.find(key);
    if (it != node.end() && it->is_number()) {
      *out = it->get<double>();
    } else {
      problems->Add(Where("node", index, node) + " has no numeric \"" + key + "\"; read as 0");
    }
  }
  const char* field = nullptr;  // the field the type requires
  if (type == "text") {
    field = "text";
    card->markdown = true;
  } else if (type == "file") {
    field = "file";
  } else if (type == "link") {
    field = "url";
  } else if (type == "group") {
    std::string label;
    if (StringField(node, "label", &label, &wrong)) card->text = std::string(common::TrimSpace(label));
    if (wrong) problems->Add(Where("node", index, node) + ": group \"label\" is not a string; ignored");
    return !card->text.empty();
  } else {
    return false;  // a type from a later version or a plugin: nothing this version can read
  }
  std::string value;
  if (!StringField(node, field, &value, &wrong)) {
    problems->Add(Where("node", index, node) + ": " + type + " node without a \"" + field + "\" string; skipped");
    return false;
  }
  if (type == "file") {
    card->file = std::string(common::TrimSpace(value));
    return !card->file.empty();
  }
  card->text = std::string(common::TrimSpace(value));
  return !card->text.empty();
}

void Append(std::string* text, std::string_view piece) {
  if (!text->empty()) text->append("\n\n");
  text->append(piece);
}

}  // namespace

bool IsCanvasPath(std::string_view path) {
  return path.size() > kCanvasExtension.size() &&
         common::AsciiLower(path.substr(path.size() - kCanvasExtension.size())) == kCanvasExtension;
}

Result<CanvasContent> ReadCanvas(std::string_view path, std::string_view content) {
  const std::string name(path);
  if (size_t bad = common::FindInvalidUtf8(content); bad != std::string_view::npos) {
    return Status::InvalidArgument(name + ": not valid UTF-8 at byte " + std::to_string(bad));
  }
  if (size_t nul = content.find('\0'); nul != std::string_view::npos) {
    return Status::InvalidArgument(name + ": binary content (NUL byte at " + std::to_string(nul) + ")");
  }
  if (content.substr(0, 3) == "\xEF\xBB\xBF") content.remove_prefix(3);  // UTF-8 BOM
  CanvasContent out;
  if (common::TrimSpace(content).empty()) return out;  // a canvas just created, before its first card
  auto invalid = [&](std::string why) {
    return Status::InvalidArgument(name + ": not a valid JSON Canvas file (" + std::move(why) + ")");
  };
  // Checked before parsing: copying or destroying a deep value recurses per level.
  if (Status limits = common::CheckJsonLimits(content, "it"); !limits.ok()) return invalid(limits.message());
  Json doc;
  try {
    doc = Json::parse(content);
  } catch (const Json::exception& e) {
    std::string why = e.what();
    if (why.rfind("[json.exception.", 0) == 0 && why.find("] ") != std::string::npos) {
      why.erase(0, why.find("] ") + 2);  // "[json.exception.parse_error.101] parse error at line 1, …"
    }
    return invalid(Cat({"invalid JSON: ", why}));
  }
  if (!doc.is_object()) {
    return invalid(std::string("expected a JSON object with \"nodes\" and \"edges\", found ") + doc.type_name());
  }
  Problems problems;
  std::vector<Card> cards;
  auto nodes = doc.find("nodes");
  if (nodes == doc.end()) {
    if (!doc.empty()) problems.Add("no \"nodes\" array; nothing to read");  // "{}" is an empty canvas
  } else if (nodes->is_null()) {
    // The spec makes "nodes" optional; null says the same.
  } else if (!nodes->is_array()) {
    return invalid(std::string("\"nodes\" is ") + nodes->type_name() + ", not an array");
  } else {
    cards.reserve(nodes->size());
    for (size_t i = 0; i < nodes->size(); ++i) {
      Card card;
      if (ReadNode((*nodes)[i], i, &problems, &card)) cards.push_back(std::move(card));
    }
  }
  // Reading order: rows top to bottom, then left to right. Positions are
  // finite (JSON has no NaN; nlohmann refuses numbers out of range), so
  // this is a strict weak order, and the index makes it total.
  std::sort(cards.begin(), cards.end(), [](const Card& a, const Card& b) {
    return std::tie(a.y, a.x, a.index) < std::tie(b.y, b.x, b.index);
  });
  for (Card& card : cards) {
    if (!card.file.empty()) {
      out.files.push_back(std::move(card.file));
      continue;
    }
    Append(&out.text, card.text);
    if (card.markdown) out.markdown.push_back(std::move(card.text));
  }
  auto edges = doc.find("edges");
  if (edges != doc.end() && !edges->is_null()) {
    if (!edges->is_array()) {
      problems.Add(std::string("\"edges\" is ") + edges->type_name() + ", not an array; edge labels ignored");
    } else {
      for (size_t i = 0; i < edges->size(); ++i) {
        const Json& edge = (*edges)[i];
        if (!edge.is_object()) {
          problems.Add(Cat({"edge ", std::to_string(i + 1), " is not an object; skipped"}));
          continue;
        }
        std::string label;
        bool wrong = false;
        if (StringField(edge, "label", &label, &wrong) && !common::TrimSpace(label).empty()) Append(&out.text, common::TrimSpace(label));
        if (wrong) problems.Add(Where("edge", i, edge) + ": \"label\" is not a string; ignored");
      }
    }
  }
  problems.MoveTo(&out.warnings);
  return out;
}

Result<Page> ParseCanvasPage(std::string_view path, std::string_view content) {
  ENGRAM_ASSIGN_OR_RETURN(CanvasContent canvas, ReadCanvas(path, content));
  Page page;
  page.path = std::string(path);
  page.slug = SlugFromPath(path);
  if (page.slug.empty()) {
    return Status::InvalidArgument(std::string(path) + ": the file name has no letter or digit to name a page");
  }
  std::string_view name = path;
  if (size_t slash = name.rfind('/'); slash != std::string_view::npos) name.remove_prefix(slash + 1);
  name.remove_suffix(kCanvasExtension.size());
  page.title = std::string(common::TrimSpace(name));
  page.type = "canvas";
  page.frontmatter_json = "{}";
  page.compiled_truth = std::move(canvas.text);
  page.compiled_truth_line = 1;
  // Links and tags as a note's: text cards line by line (code fences are
  // per card: each card is its own Markdown document), then file cards.
  PageRefCollector refs(path);
  for (const std::string& md : canvas.markdown) {
    bool in_code = false;
    size_t start = 0;
    while (start <= md.size()) {
      size_t end = md.find('\n', start);
      if (end == std::string::npos) end = md.size();
      std::string_view line = std::string_view(md).substr(start, end - start);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      const std::string_view t = common::TrimSpace(line);
      if (t.substr(0, 3) == "```" || t.substr(0, 3) == "~~~") {
        in_code = !in_code;
      } else if (!in_code) {
        refs.ScanLine(line);
      }
      start = end + 1;
    }
  }
  for (const std::string& file : canvas.files) refs.AddFile(file, file);
  page.links = refs.TakeLinks();
  page.tags = refs.TakeTags();
  page.warnings = std::move(canvas.warnings);
  return page;
}

}  // namespace engram::text
