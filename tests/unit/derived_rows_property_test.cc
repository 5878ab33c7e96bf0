// Property: whatever sequence of adds, body edits, title edits, renames and
// deletes reaches a brain, through whichever write path (folder import,
// PageModule::Put / Delete / page edits, git sync with and without --worktree),
// its derived rows equal those of a fresh brain imported from the same final
// files, row for row (tests/unit/derived_rows_dump.h), and `check --full`
// finds nothing.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include "derived_rows_dump.h"
#include "engram/brain.h"
#include "test_support.h"
#include "ops/page_module.h"
#include "ops/sync_module.h"

namespace engram {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

const char* const kWords[] = {"river", "stone",  "market", "engine", "garden", "signal", "harbor", "pencil",
                              "forest", "window", "copper", "planet", "letter", "bridge", "silver", "rocket",
                              "meadow", "castle", "ladder", "violin", "jacket", "tunnel", "orchid", "falcon"};

std::string ReadAll(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void WriteAll(const fs::path& p, const std::string& s) {
  fs::create_directories(p.parent_path());
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << s;
}

// The frontmatter block ("---\n...\n---\n") at the start of content, or "".
std::string FrontmatterOf(const std::string& content) {
  if (content.rfind("---\n", 0) != 0) return "";
  size_t end = content.find("\n---\n", 3);
  return end == std::string::npos ? "" : content.substr(0, end + 5);
}

class Generator {
 public:
  explicit Generator(uint32_t seed) : rng_(seed) {}

  size_t Below(size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng_); }
  bool Chance(double p) { return std::bernoulli_distribution(p)(rng_); }
  std::string Word() { return kWords[Below(std::size(kWords))]; }
  // A made-up word that appears nowhere else: title-only words must still be found.
  std::string Unique() {
    std::string w;
    for (int i = 0; i < 7; ++i) w.push_back(static_cast<char>('a' + Below(26)));
    return w;
  }
  std::string Words(size_t n) {
    std::string s;
    for (size_t i = 0; i < n; ++i) {
      if (i) s += ' ';
      s += Word();  // appended, not "x" + Word(): GCC 12 warns (-Wrestrict) on that
    }
    return s;
  }

  std::string Title() { return Unique() + " " + Word(); }

  // A link to slug ("notes/p3") in one of the forms Obsidian vaults hold: the
  // path, the bare name (which page it reaches depends on the other pages
  // with that name), a relative or a bracketed Markdown link.
  std::string Link(const std::string& slug) {
    const std::string name = slug.substr(slug.rfind('/') + 1);
    switch (Below(5)) {
      case 0: return "[[" + slug + "]]";
      case 1: return "[[" + name + "]]";
      case 2: return "[" + Word() + "](../" + slug + ".md)";
      case 3: return "[" + Word() + "](<" + name + ".md>)";
      default: return "- [ ] [[" + name + "|" + Word() + "]] from [" + Word() + "](https://example.com)";
    }
  }

  std::string Body(const std::vector<std::string>& slugs) {
    std::string body;
    size_t paragraphs = 1 + Below(3);
    for (size_t p = 0; p < paragraphs; ++p) {
      if (Chance(0.3)) body.append("## ").append(Words(2)).append("\n\n");
      // Now and then a paragraph long enough for several chunks.
      body += Words(Chance(0.15) ? 250 + Below(300) : 3 + Below(40));
      if (!slugs.empty() && Chance(0.4)) body.append(" see ").append(Link(slugs[Below(slugs.size())]));
      body += ".\n\n";
    }
    // Facts (text/page_facts.h): fact lines, now and then dated or naming a page.
    if (Chance(0.2)) {
      body.append("- fact: role: ").append(Word());
      if (Chance(0.5)) body.append(" (since 2024-0").append(std::to_string(1 + Below(9))).append(")");
      body += "\n";
    }
    if (Chance(0.2) && !slugs.empty()) body.append("- fact: company: ").append(Link(slugs[Below(slugs.size())]));
    body += "\n\n";
    if (Chance(0.3)) {
      body += "<!-- timeline -->\n\n";
      size_t n = 1 + Below(3);
      for (size_t i = 0; i < n; ++i) {
        // Some entries say a change: a job (with a link the other pages decide), a role, leaving.
        std::string what = Words(3);
        if (Chance(0.3) && !slugs.empty()) what = "Joined " + Link(slugs[Below(slugs.size())]) + " as " + Word();
        else if (Chance(0.2)) what = "Promoted to " + Word();
        else if (Chance(0.1) && !slugs.empty()) what = "加入[[" + slugs[Below(slugs.size())] + "]]担任" + Word();
        body += "- **2026-0" + std::to_string(1 + Below(9)) + "-1" + std::to_string(Below(10)) + "** | " + what + "\n";
      }
    }
    return body;
  }

  std::string Page(const std::vector<std::string>& slugs) {
    std::string fm;
    if (Chance(0.8)) fm += "title: " + Title() + "\n";
    if (Chance(0.3)) fm += "aliases: [" + Unique() + "]\n";
    if (Chance(0.4)) fm += "tags: [" + Word() + (Chance(0.5) ? ", " + Word() : "") + "]\n";
    if (Chance(0.2)) fm += "type: " + Word() + "\n";
    if (Chance(0.1)) fm += "visibility: private\n";
    if (Chance(0.2)) fm += "role: " + Word() + "\n";
    if (Chance(0.2) && !slugs.empty()) fm += "company: \"[[" + slugs[Below(slugs.size())] + "]]\"\n";
    std::string head = fm.empty() ? (Chance(0.5) ? "# " + Title() + "\n\n" : "") : "---\n" + fm + "---\n";
    return head + Body(slugs);
  }

  std::string EditBody(const std::string& content, const std::vector<std::string>& slugs) {
    return FrontmatterOf(content) + Body(slugs);
  }

  std::string EditTitle(const std::string& content) {
    std::string fm = FrontmatterOf(content);
    std::string rest = content.substr(fm.size());
    std::string line = "title: " + Title() + "\n";
    if (fm.empty()) return "---\n" + line + "---\n" + rest;
    size_t at = fm.find("\ntitle: ");
    if (at == std::string::npos) return "---\n" + line + fm.substr(4) + rest;
    size_t end = fm.find('\n', at + 1);
    return fm.substr(0, at + 1) + line + fm.substr(end + 1) + rest;
  }

 private:
  std::mt19937 rng_;
};

enum class Path { kImport, kBrain, kGit, kMixed };

const char* Name(Path p) {
  switch (p) {
    case Path::kImport: return "import";
    case Path::kBrain: return "brain";
    case Path::kGit: return "git";
    case Path::kMixed: return "mixed";
  }
  return "?";
}

class Scenario {
 public:
  Scenario(Path path, uint32_t seed) : path_(path), gen_(seed) {
    root_ = dir_.path() / "brain";
    fs::create_directories(root_);
    if (git()) {
      Git("init -q");
      Git("commit -q --allow-empty -m start");
    }
    EXPECT_TRUE(Brain::Init(root_).ok());
    auto b = Brain::Open(root_);
    EXPECT_TRUE(b.ok()) << b.status().ToString();
    brain_ = std::move(b).value();
  }

  bool git() const { return path_ == Path::kGit || path_ == Path::kMixed; }
  const fs::path& root() const { return root_; }
  Brain& brain() { return *brain_; }
  const std::string& log() const { return log_; }

  void Git(const std::string& args) {
    std::string cmd = "git -C '" + root_.string() +
                      "' -c user.name=t -c user.email=t@example.com -c core.hooksPath=/dev/null "
                      "-c commit.gpgsign=false " + args + " >/dev/null 2>&1";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  }

  // One random step through this scenario's write path.
  void Step() {
    std::vector<std::string> slugs = Slugs();
    size_t op = slugs.empty() ? 0 : gen_.Below(10);
    if (op <= 2 || slugs.size() < 3) {
      std::string slug = Fresh();
      Write(slug, gen_.Page(slugs));
      log_ += "add " + slug + "\n";
    } else if (op <= 4) {
      std::string slug = slugs[gen_.Below(slugs.size())];
      Write(slug, gen_.EditBody(Read(slug), slugs));
      log_ += "edit body " + slug + "\n";
    } else if (op <= 6) {
      std::string slug = slugs[gen_.Below(slugs.size())];
      Write(slug, gen_.EditTitle(Read(slug)));
      log_ += "edit title " + slug + "\n";
    } else if (op <= 8) {
      std::string from = slugs[gen_.Below(slugs.size())];
      std::string to = Fresh();
      bool edit = gen_.Chance(0.3);
      Rename(from, to, edit);
      log_ += "rename " + from + " -> " + to + (edit ? " (edited)" : "") + "\n";
    } else {
      std::string slug = slugs[gen_.Below(slugs.size())];
      Remove(slug);
      log_ += "delete " + slug + "\n";
    }
    Settle(false);
  }

  // Brings the brain up to date with the files through this path's own
  // operation (an import, a commit + sync); final forces it.
  void Settle(bool final) {
    OperationContext ctx;
    switch (path_) {
      case Path::kImport:
        if (final || gen_.Chance(0.5)) {
          auto r = brain_->Module<ops::SyncModule>().Import(ctx, root_, false);
          ASSERT_TRUE(r.ok()) << r.status().ToString();
          log_ += "import\n";
        }
        break;
      case Path::kBrain:
        break;
      case Path::kGit:
      case Path::kMixed:
        if (!final && path_ == Path::kGit && gen_.Chance(0.2)) {
          auto r = brain_->Module<ops::SyncModule>().Sync(ctx, false, true);
          ASSERT_TRUE(r.ok()) << r.status().ToString();
          log_ += "sync --worktree\n";
        } else if (final || gen_.Chance(0.5)) {
          Git("add -A");
          Git("commit -q --allow-empty -m step");
          auto r = brain_->Module<ops::SyncModule>().Sync(ctx, false, false);
          ASSERT_TRUE(r.ok()) << r.status().ToString();
          ASSERT_TRUE(r->failed.empty()) << r->failed[0].path << ": " << r->failed[0].reason;
          log_ += "commit + sync\n";
        }
        break;
    }
  }

 private:
  bool ThroughBrain() const { return path_ == Path::kBrain || path_ == Path::kMixed; }

  std::vector<std::string> Slugs() const {
    std::vector<std::string> out;
    for (const auto& e : fs::recursive_directory_iterator(root_)) {
      std::string rel = fs::relative(e.path(), root_).string();
      if (rel.rfind(".engram", 0) == 0 || rel.rfind(".git", 0) == 0) continue;
      if (e.is_regular_file() && e.path().extension() == ".md") out.push_back(rel.substr(0, rel.size() - 3));
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  // A new file; now and then with the name of a file in another folder, so
  // that links by name have more than one page to choose from.
  std::string Fresh() {
    static const char* const kFolders[] = {"notes", "people", "projects/deep"};
    if (next_ > 0 && gen_.Chance(0.3)) {
      std::string reused = std::string(kFolders[gen_.Below(3)]) + "/p" + std::to_string(gen_.Below(next_));
      if (!fs::exists(root_ / (reused + ".md"))) return reused;
    }
    return std::string(kFolders[gen_.Below(3)]) + "/p" + std::to_string(next_++);
  }

  std::string Read(const std::string& slug) { return ReadAll(root_ / (slug + ".md")); }

  void Write(const std::string& slug, const std::string& content) {
    if (ThroughBrain()) {
      OperationContext ctx;
      // Now and then through a page edit instead of a whole put.
      if (fs::exists(root_ / (slug + ".md")) && gen_.Chance(0.25)) {
        Result<PutReport> r = Status::Internal("no page edit ran");
        switch (gen_.Below(3)) {
          case 0: r = brain_->Module<ops::PageModule>().AddTag(ctx, slug, gen_.Word()); break;
          case 1:
            r = brain_->Module<ops::PageModule>().AddLink(ctx, slug, "notes/p" + std::to_string(gen_.Below(next_ + 1)),
                                                          "mentions");
            break;
          default:
            r = brain_->Module<ops::PageModule>().AddTimelineEntry(
                ctx, slug, "2026-05-0" + std::to_string(1 + gen_.Below(9)), gen_.Words(3), "");
            break;
        }
        ASSERT_TRUE(r.ok()) << r.status().ToString();
        log_ += "(page edit) ";
        return;
      }
      auto r = brain_->Module<ops::PageModule>().Put(ctx, slug, content);
      ASSERT_TRUE(r.ok()) << slug << ": " << r.status().ToString();
    } else {
      WriteAll(root_ / (slug + ".md"), content);
    }
  }

  void Remove(const std::string& slug) {
    if (ThroughBrain()) {
      OperationContext ctx;
      ASSERT_TRUE(brain_->Module<ops::PageModule>().Delete(ctx, slug).ok());
    } else {
      fs::remove(root_ / (slug + ".md"));
    }
  }

  void Rename(const std::string& from, const std::string& to, bool edit) {
    std::string content = Read(from);
    if (edit) content += "\n" + gen_.Words(4) + "\n";
    if (ThroughBrain()) {  // the operation layer has no rename: a put and a delete
      Write(to, content);
      Remove(from);
    } else {
      fs::create_directories((root_ / (to + ".md")).parent_path());
      fs::rename(root_ / (from + ".md"), root_ / (to + ".md"));
      if (edit) WriteAll(root_ / (to + ".md"), content);
    }
  }

  Path path_;
  Generator gen_;
  TempDir dir_;
  fs::path root_;
  std::unique_ptr<Brain> brain_;
  int next_ = 0;
  std::string log_;
};

// Every page's backlinks as the brain resolves them ("to <- from type"),
// sorted; and each link reaches at most one page, so no (from, written
// target, type) may show up under two pages.
std::string ResolvedLinks(Brain& brain) {
  OperationContext ctx;
  ListFilter all;
  all.limit = 100000;
  auto pages = brain.Module<ops::PageModule>().List(ctx, all);
  EXPECT_TRUE(pages.ok());
  std::vector<std::string> lines;
  std::map<std::string, std::string> reached;  // from, target, type -> the page it reached
  for (const PageSummary& p : pages.ok() ? *pages : std::vector<PageSummary>{}) {
    auto back = brain.Module<ops::PageModule>().Backlinks(ctx, p.slug);
    EXPECT_TRUE(back.ok()) << p.slug;
    if (!back.ok()) continue;
    for (const LinkRecord& l : *back) {
      lines.push_back(p.slug + " <- " + l.from_slug + " " + l.type);
      auto [it, fresh] = reached.emplace(l.from_slug + " [[" + l.to_slug + "]] " + l.type, p.slug);
      EXPECT_TRUE(fresh) << it->first << " reaches both " << it->second << " and " << p.slug;
    }
  }
  std::sort(lines.begin(), lines.end());
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

// A fresh brain imported from a copy of root's Markdown files.
testing::DerivedDump FreshBuild(const fs::path& root, const fs::path& into) {
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    std::string rel = fs::relative(e.path(), root).string();
    if (rel.rfind(".engram", 0) == 0 || rel.rfind(".git", 0) == 0 || !e.is_regular_file()) continue;
    WriteAll(into / rel, ReadAll(e.path()));
  }
  EXPECT_TRUE(Brain::Init(into).ok());
  auto b = Brain::Open(into);
  EXPECT_TRUE(b.ok());
  OperationContext ctx;
  auto r = (*b)->Module<ops::SyncModule>().Import(ctx, into, false);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  testing::DerivedDump dump = testing::DumpDerivedRows(into / ".engram" / "engram.db");
  dump["resolved links"] = ResolvedLinks(**b);
  return dump;
}

void RunScenario(Path path, uint32_t seed, int steps) {
  SCOPED_TRACE(std::string("write path ") + Name(path) + ", seed " + std::to_string(seed));
  Scenario s(path, seed);
  for (int i = 0; i < steps && !::testing::Test::HasFatalFailure(); ++i) s.Step();
  ASSERT_FALSE(::testing::Test::HasFatalFailure()) << s.log();
  s.Settle(true);
  ASSERT_FALSE(::testing::Test::HasFatalFailure()) << s.log();

  testing::DerivedDump got = testing::DumpDerivedRows(s.root() / ".engram" / "engram.db");
  got["resolved links"] = ResolvedLinks(s.brain());
  TempDir fresh;
  testing::DerivedDump want = FreshBuild(s.root(), fresh.path() / "brain");
  ASSERT_EQ(got.size(), want.size());
  for (const auto& [section, rows] : want) {
    EXPECT_EQ(got[section], rows) << "derived rows '" << section << "' differ from a fresh build after:\n"
                                  << s.log();
  }
  EXPECT_NE(want["pages"], "") << "the scenario left no pages; it tests nothing";
  EXPECT_NE(want["resolved links"], "") << "no link reached a page; links are not tested";

  OperationContext ctx;
  auto check = s.brain().Module<ops::SyncModule>().Check(ctx, CheckOptions{.full = true});
  ASSERT_TRUE(check.ok()) << check.status().ToString();
  for (const auto& p : check->problems) ADD_FAILURE() << "check --full: " << p.path << ": " << p.reason;
}

constexpr uint32_t kSeeds[] = {1, 2, 3};
constexpr int kSteps = 30;

TEST(DerivedRowsProperty, FolderImportEqualsAFreshBuild) {
  for (uint32_t seed : kSeeds) RunScenario(Path::kImport, seed, kSteps);
}

TEST(DerivedRowsProperty, BrainPutsDeletesAndEditsEqualAFreshBuild) {
  for (uint32_t seed : kSeeds) RunScenario(Path::kBrain, seed, kSteps);
}

TEST(DerivedRowsProperty, GitSyncEqualsAFreshBuild) {
  for (uint32_t seed : kSeeds) RunScenario(Path::kGit, seed, kSteps);
}

TEST(DerivedRowsProperty, BrainWritesInAGitBrainThenSyncEqualAFreshBuild) {
  for (uint32_t seed : kSeeds) RunScenario(Path::kMixed, seed, kSteps);
}

}  // namespace
}  // namespace engram
