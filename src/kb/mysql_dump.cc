#include "kb/mysql_dump.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "common/hash.h"
#include "common/utf8.h"

namespace engram::kb {

namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
bool IsWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '$'; }

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// A cursor over the dump that knows its line and stops at the first error.
class Reader {
 public:
  explicit Reader(std::string_view s) : s_(s) {}

  bool AtEnd() const { return i_ >= s_.size(); }
  char Peek(size_t ahead = 0) const { return i_ + ahead < s_.size() ? s_[i_ + ahead] : '\0'; }
  size_t pos() const { return i_; }

  // The 1-based line of byte offset pos (offsets asked for mostly increase).
  int LineOf(size_t pos) {
    if (pos < line_pos_) {
      line_pos_ = 0;
      line_ = 1;
    }
    line_ += static_cast<int>(std::count(s_.begin() + static_cast<std::ptrdiff_t>(line_pos_),
                                         s_.begin() + static_cast<std::ptrdiff_t>(std::min(pos, s_.size())), '\n'));
    line_pos_ = std::min(pos, s_.size());
    return line_;
  }

  Status Error(size_t pos, const std::string& what) {
    return Status::InvalidArgument("line " + std::to_string(LineOf(pos)) + ": " + what);
  }

  // Skips white space and comments (-- , #, /* */ including /*! */).
  Status SkipBlank() {
    while (!AtEnd()) {
      const char c = Peek();
      if (IsSpace(c)) {
        ++i_;
      } else if (c == '#' || (c == '-' && Peek(1) == '-' && (IsSpace(Peek(2)) || Peek(2) == '\0'))) {
        const size_t nl = s_.find('\n', i_);
        i_ = nl == std::string_view::npos ? s_.size() : nl + 1;
      } else if (c == '/' && Peek(1) == '*') {
        const size_t end = s_.find("*/", i_ + 2);
        if (end == std::string_view::npos) return Error(i_, "a /* comment never ends");
        i_ = end + 2;
      } else {
        break;
      }
    }
    return Status::Ok();
  }

  // The keyword at the cursor (case-insensitive, whole word), consumed.
  bool Keyword(std::string_view word) {
    if (s_.size() - std::min(i_, s_.size()) < word.size()) return false;
    for (size_t k = 0; k < word.size(); ++k) {
      if (std::toupper(static_cast<unsigned char>(s_[i_ + k])) != word[k]) return false;
    }
    if (IsWordChar(Peek(word.size()))) return false;
    i_ += word.size();
    return true;
  }

  bool Consume(char c) {
    if (Peek() != c || AtEnd()) return false;
    ++i_;
    return true;
  }

  // An identifier: `quoted` (`` for a backtick) or a bare word.
  Result<std::string> Identifier() {
    const size_t start = i_;
    std::string out;
    if (Consume('`')) {
      for (;;) {
        if (AtEnd()) return Error(start, "a `quoted` name never ends");
        const char c = s_[i_++];
        if (c != '`') {
          out.push_back(c);
        } else if (Consume('`')) {
          out.push_back('`');
        } else {
          return out;
        }
      }
    }
    while (!AtEnd() && IsWordChar(Peek())) out.push_back(s_[i_++]);
    if (out.empty()) return Error(start, "a name was expected");
    return out;
  }

  // A table name, maybe qualified (`db`.`table`): the table's part.
  Result<std::string> TableName() {
    ENGRAM_ASSIGN_OR_RETURN(std::string name, Identifier());
    while (Consume('.')) {
      ENGRAM_ASSIGN_OR_RETURN(name, Identifier());
    }
    return name;
  }

  // A quoted string at the cursor (quote ' or "), with MySQL's escapes.
  Result<std::string> QuotedString() {
    const size_t start = i_;
    const char quote = s_[i_++];
    std::string out;
    for (;;) {
      const size_t run = s_.find_first_of(quote == '\'' ? std::string_view("'\\") : std::string_view("\"\\"), i_);
      if (run == std::string_view::npos) return Error(start, "a string never ends (is the dump cut short?)");
      out.append(s_.substr(i_, run - i_));
      i_ = run;
      const char c = s_[i_++];
      if (c == quote) {
        if (Consume(quote)) {
          out.push_back(quote);
          continue;
        }
        return out;
      }
      if (AtEnd()) return Error(start, "a string never ends (is the dump cut short?)");
      const char e = s_[i_++];
      switch (e) {
        case '0': out.push_back('\0'); break;
        case 'b': out.push_back('\b'); break;
        case 'n': out.push_back('\n'); break;
        case 'r': out.push_back('\r'); break;
        case 't': out.push_back('\t'); break;
        case 'Z': out.push_back('\x1a'); break;
        case '%': case '_': out.push_back('\\'); out.push_back(e); break;
        default: out.push_back(e); break;
      }
    }
  }

  // A value of a VALUES row.
  Result<std::optional<std::string>> Value() {
    const size_t start = i_;
    const char c = Peek();
    if (c == '\'' || c == '"') {
      ENGRAM_ASSIGN_OR_RETURN(std::string text, QuotedString());
      return std::optional<std::string>(std::move(text));
    }
    if ((c == 'X' || c == 'x') && Peek(1) == '\'') {
      ++i_;
      ENGRAM_ASSIGN_OR_RETURN(std::string hex, QuotedString());
      return Hex(start, hex);
    }
    if (c == '0' && (Peek(1) == 'x' || Peek(1) == 'X')) {
      i_ += 2;
      std::string hex;
      while (HexValue(Peek()) >= 0) hex.push_back(s_[i_++]);
      return Hex(start, hex);
    }
    if (c == '_') {  // a charset introducer: _utf8mb4'...'
      while (IsWordChar(Peek())) ++i_;
      if (Peek() != '\'' && Peek() != '"') return Error(start, "a quoted string was expected after the charset");
      ENGRAM_ASSIGN_OR_RETURN(std::string text, QuotedString());
      return std::optional<std::string>(std::move(text));
    }
    if (c == '-' || c == '+' || c == '.' || std::isdigit(static_cast<unsigned char>(c)) != 0) {
      std::string number(1, s_[i_++]);
      while (!AtEnd() && (std::isalnum(static_cast<unsigned char>(Peek())) != 0 || Peek() == '.' ||
                          ((Peek() == '-' || Peek() == '+') && (number.back() == 'e' || number.back() == 'E')))) {
        number.push_back(s_[i_++]);
      }
      return std::optional<std::string>(std::move(number));
    }
    if (std::isalpha(static_cast<unsigned char>(c)) != 0) {
      std::string word;
      while (IsWordChar(Peek())) word.push_back(s_[i_++]);
      if (Consume('(')) {
        if (!Consume(')')) return Error(start, "only a function without arguments may stand for a value");
        word += "()";
      }
      std::string upper = word;
      for (char& u : upper) u = static_cast<char>(std::toupper(static_cast<unsigned char>(u)));
      if (upper == "NULL") return std::optional<std::string>();
      return std::optional<std::string>(std::move(word));
    }
    if (AtEnd()) return Error(start, "the dump ends inside a row (is it cut short?)");
    return Error(start, std::string("unexpected '") + c + "' where a value was expected");
  }

  // Moves past the statement's ';' (skipping strings, names and comments);
  // false when the dump ends first.
  Result<bool> SkipStatement() {
    while (!AtEnd()) {
      ENGRAM_RETURN_IF_ERROR(SkipBlank());
      if (AtEnd()) break;
      const char c = Peek();
      if (c == ';') {
        ++i_;
        return true;
      }
      if (c == '\'' || c == '"') {
        ENGRAM_RETURN_IF_ERROR(QuotedString().status());
      } else if (c == '`') {
        ENGRAM_RETURN_IF_ERROR(Identifier().status());
      } else {
        ++i_;
      }
    }
    return false;
  }

 private:
  Result<std::optional<std::string>> Hex(size_t start, const std::string& hex) {
    if (hex.size() % 2 != 0) return Error(start, "a hex literal has an odd number of digits");
    std::string out;
    for (size_t k = 0; k < hex.size(); k += 2) {
      const int hi = HexValue(hex[k]);
      const int lo = HexValue(hex[k + 1]);
      if (hi < 0 || lo < 0) return Error(start, "a hex literal holds a character that is not a hex digit");
      out.push_back(static_cast<char>(hi * 16 + lo));
    }
    return std::optional<std::string>(std::move(out));
  }

  std::string_view s_;
  size_t i_ = 0;
  size_t line_pos_ = 0;
  int line_ = 1;
};

// CREATE TABLE's column names, in order (keys and constraints skipped).
Result<std::vector<std::string>> CreateColumns(Reader& r) {
  std::vector<std::string> columns;
  ENGRAM_RETURN_IF_ERROR(r.SkipBlank());
  if (!r.Consume('(')) return columns;  // CREATE TABLE ... LIKE / AS SELECT: no columns given
  for (;;) {
    ENGRAM_RETURN_IF_ERROR(r.SkipBlank());
    const bool definition = r.Peek() == '`' || (IsWordChar(r.Peek()) && !r.Keyword("PRIMARY") &&
                                                !r.Keyword("UNIQUE") && !r.Keyword("KEY") && !r.Keyword("INDEX") &&
                                                !r.Keyword("CONSTRAINT") && !r.Keyword("FULLTEXT") &&
                                                !r.Keyword("SPATIAL") && !r.Keyword("FOREIGN") && !r.Keyword("CHECK"));
    if (definition) {
      ENGRAM_ASSIGN_OR_RETURN(std::string name, r.Identifier());
      columns.push_back(std::move(name));
    }
    // To the ',' or ')' that ends this item, past nested parentheses and strings.
    int depth = 0;
    for (;;) {
      ENGRAM_RETURN_IF_ERROR(r.SkipBlank());
      if (r.AtEnd()) return r.Error(r.pos(), "CREATE TABLE never ends (is the dump cut short?)");
      const char c = r.Peek();
      if (c == '\'' || c == '"') {
        ENGRAM_RETURN_IF_ERROR(r.QuotedString().status());
      } else if (c == '`') {
        ENGRAM_RETURN_IF_ERROR(r.Identifier().status());
      } else {
        r.Consume(c);
        if (c == '(') ++depth;
        if (c == ')' && depth-- == 0) return columns;
        if (c == ',' && depth == 0) break;
      }
    }
  }
}

}  // namespace

Result<DumpTable> ReadMysqlInserts(std::string_view dump, std::string_view table) {
  Reader r(dump);
  DumpTable out;
  std::vector<std::string> created;  // the columns of the last CREATE TABLE for it
  for (;;) {
    ENGRAM_RETURN_IF_ERROR(r.SkipBlank());
    if (r.AtEnd()) break;
    const size_t start = r.pos();
    if (r.Keyword("CREATE")) {
      ENGRAM_RETURN_IF_ERROR(r.SkipBlank());
      if (r.Keyword("TABLE")) {
        ENGRAM_RETURN_IF_ERROR(r.SkipBlank());
        if (r.Keyword("IF")) {
          ENGRAM_RETURN_IF_ERROR(r.SkipBlank());
          r.Keyword("NOT");
          ENGRAM_RETURN_IF_ERROR(r.SkipBlank());
          r.Keyword("EXISTS");
          ENGRAM_RETURN_IF_ERROR(r.SkipBlank());
        }
        ENGRAM_ASSIGN_OR_RETURN(std::string name, r.TableName());
        if (name == table) {
          ENGRAM_ASSIGN_OR_RETURN(created, CreateColumns(r));
        }
      }
      ENGRAM_RETURN_IF_ERROR(r.SkipStatement().status());
      continue;
    }
    if (!r.Keyword("INSERT") && !r.Keyword("REPLACE")) {
      ENGRAM_RETURN_IF_ERROR(r.SkipStatement().status());
      continue;
    }
    ENGRAM_RETURN_IF_ERROR(r.SkipBlank());
    while (r.Keyword("LOW_PRIORITY") || r.Keyword("DELAYED") || r.Keyword("HIGH_PRIORITY") || r.Keyword("IGNORE")) {
      ENGRAM_RETURN_IF_ERROR(r.SkipBlank());
    }
    r.Keyword("INTO");
    ENGRAM_RETURN_IF_ERROR(r.SkipBlank());
    ENGRAM_ASSIGN_OR_RETURN(std::string name, r.TableName());
    if (name != table) {
      ENGRAM_RETURN_IF_ERROR(r.SkipStatement().status());
      continue;
    }
    ENGRAM_RETURN_IF_ERROR(r.SkipBlank());
    std::vector<std::string> columns;
    if (r.Consume('(')) {
      for (;;) {
        ENGRAM_RETURN_IF_ERROR(r.SkipBlank());
        ENGRAM_ASSIGN_OR_RETURN(std::string column, r.Identifier());
        columns.push_back(std::move(column));
        ENGRAM_RETURN_IF_ERROR(r.SkipBlank());
        if (r.Consume(')')) break;
        if (!r.Consume(',')) return r.Error(r.pos(), "',' or ')' was expected in the INSERT's column list");
      }
      ENGRAM_RETURN_IF_ERROR(r.SkipBlank());
    } else {
      if (created.empty()) {
        return r.Error(start, "an INSERT INTO `" + std::string(table) +
                                  "` names no columns and no CREATE TABLE for it comes before it");
      }
      columns = created;
    }
    if (out.columns.empty()) {
      out.columns = columns;
    } else if (columns != out.columns) {
      return r.Error(start, "this INSERT's columns differ from the first INSERT's");
    }
    if (!r.Keyword("VALUES") && !r.Keyword("VALUE")) return r.Error(r.pos(), "VALUES was expected");
    for (;;) {
      ENGRAM_RETURN_IF_ERROR(r.SkipBlank());
      const size_t row_start = r.pos();
      if (!r.Consume('(')) {
        return r.Error(row_start, r.AtEnd() ? "the dump ends inside an INSERT (is it cut short?)" : "'(' was expected");
      }
      DumpTable::Row row;
      row.line = r.LineOf(row_start);
      for (;;) {
        ENGRAM_RETURN_IF_ERROR(r.SkipBlank());
        ENGRAM_ASSIGN_OR_RETURN(std::optional<std::string> v, r.Value());
        row.values.push_back(std::move(v));
        ENGRAM_RETURN_IF_ERROR(r.SkipBlank());
        if (r.Consume(')')) break;
        if (!r.Consume(',')) {
          return r.Error(r.pos(), r.AtEnd() ? "the dump ends inside a row (is it cut short?)"
                                            : "',' or ')' was expected between a row's values");
        }
      }
      if (row.values.size() != columns.size()) {
        return r.Error(row_start, "a row has " + std::to_string(row.values.size()) + " values for " +
                                      std::to_string(columns.size()) + " columns");
      }
      out.rows.push_back(std::move(row));
      ENGRAM_RETURN_IF_ERROR(r.SkipBlank());
      if (r.Consume(',')) continue;
      if (r.Consume(';')) break;
      if (r.Keyword("ON")) {  // ON DUPLICATE KEY UPDATE ...: the rows are what count
        ENGRAM_ASSIGN_OR_RETURN(bool ended, r.SkipStatement());
        if (!ended) return r.Error(start, "the INSERT never ends with ';' (is the dump cut short?)");
        break;
      }
      return r.Error(r.pos(), r.AtEnd() ? "the INSERT never ends with ';' (is the dump cut short?)"
                                        : "',' or ';' was expected after a row");
    }
  }
  return out;
}

Result<std::vector<GovernedEntry>> ReadRedLineDump(std::string_view dump) {
  constexpr std::string_view kTable = "red_line_knowledge";
  ENGRAM_ASSIGN_OR_RETURN(DumpTable t, ReadMysqlInserts(dump, kTable));
  std::vector<GovernedEntry> out;
  if (t.rows.empty()) return out;
  auto column = [&](std::string_view name) -> int {
    auto it = std::find(t.columns.begin(), t.columns.end(), name);
    return it == t.columns.end() ? -1 : static_cast<int>(it - t.columns.begin());
  };
  for (const char* required : {"question", "business_scene"}) {
    if (column(required) < 0) {
      return Status::InvalidArgument("line " + std::to_string(t.rows.front().line) + ": the INSERTs of " +
                                     std::string(kTable) + " have no " + required + " column");
    }
  }
  struct Field {
    const char* column;
    std::string GovernedEntry::*member;
  };
  static const Field kFields[] = {
      {"uniq_id", &GovernedEntry::uniq_id},     {"business_scene", &GovernedEntry::business_scene},
      {"question", &GovernedEntry::question},   {"answer", &GovernedEntry::answer},
      {"metadata", &GovernedEntry::metadata},   {"class_name", &GovernedEntry::class_name},
      {"class_no", &GovernedEntry::class_no},   {"source", &GovernedEntry::source},
      {"type", &GovernedEntry::type},           {"desc", &GovernedEntry::desc},
      {"status", &GovernedEntry::status},       {"editor", &GovernedEntry::editor},
      {"editor_id", &GovernedEntry::editor_id}, {"auditor", &GovernedEntry::auditor},
      {"auditor_id", &GovernedEntry::auditor_id}, {"releaser", &GovernedEntry::releaser},
      {"releaser_id", &GovernedEntry::releaser_id}, {"create_time", &GovernedEntry::create_time},
      {"update_time", &GovernedEntry::update_time}};
  std::vector<int> at;
  for (const Field& f : kFields) at.push_back(column(f.column));
  const int version_at = column("version");
  out.reserve(t.rows.size());
  for (const DumpTable::Row& row : t.rows) {
    auto fail = [&](const std::string& what) {
      return Status::InvalidArgument("line " + std::to_string(row.line) + ": " + what);
    };
    GovernedEntry g;
    g.status.clear();
    g.metadata.clear();
    for (size_t k = 0; k < at.size(); ++k) {
      if (at[k] < 0 || !row.values[at[k]]) continue;
      const std::string& v = *row.values[at[k]];
      if (!common::IsValidUtf8(v)) return fail(std::string(kFields[k].column) + " is not valid UTF-8");
      g.*kFields[k].member = v;
    }
    if (!row.values[column("question")] || g.question.empty()) return fail("question is empty or NULL");
    if (!row.values[column("business_scene")]) return fail("business_scene is NULL");
    if (g.uniq_id.empty()) g.uniq_id = common::Md5Hex(g.question);
    if (version_at >= 0 && row.values[version_at]) {
      const std::string& v = *row.values[version_at];
      char* end = nullptr;
      const long long n = std::strtoll(v.c_str(), &end, 10);
      if (v.empty() || *end != '\0' || n < 1) {
        return fail("version '" + v.substr(0, 40) + "' is not a whole number >= 1");
      }
      g.version = n;
    }
    std::string status = g.status;
    for (char& c : status) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (status.empty() || status == "online" || status == "1") {
      g.status = "online";
    } else if (status == "offline" || status == "0") {
      g.status = "offline";
    } else {
      return fail("status '" + g.status.substr(0, 40) + "' is neither online nor offline (nor 1 or 0)");
    }
    if (g.metadata.empty()) {
      g.metadata = "{}";
    } else if (!nlohmann::json::parse(g.metadata, nullptr, false).is_object()) {
      return fail("metadata is not a JSON object");
    }
    out.push_back(std::move(g));
  }
  return out;
}

}  // namespace engram::kb
