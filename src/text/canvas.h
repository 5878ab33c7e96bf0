// Obsidian canvases (".canvas" files, JSON Canvas 1.0, jsoncanvas.org) read
// as pages: what a canvas says is in its cards, so its text nodes' Markdown,
// group labels, link cards' URLs and edge labels are the page's text, and its
// file cards that name notes are the page's links.
//
// A canvas is outside input like any note: whatever the file holds (not
// JSON, too deep, wrong types) is an error or a warning naming the file and
// the problem, never an exception or a crash.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engram/page.h"
#include "engram/status.h"

namespace engram::text {

// True when path names a canvas: it ends in ".canvas" (any letter case).
bool IsCanvasPath(std::string_view path);

// What a canvas holds, read in a stable order.
struct CanvasContent {
  // The text of its cards in reading order — top to bottom, then left to
  // right (ties: file order): text nodes' Markdown (trimmed), group labels
  // and link nodes' URLs; then edge labels in file order. Pieces are
  // separated by a blank line. File nodes add no text.
  std::string text;
  // The text nodes alone, in the same order (links and tags are read from
  // these, not from labels, which Obsidian shows as plain text).
  std::vector<std::string> markdown;
  // File nodes' paths as written (from the vault root, without subpath), in
  // reading order.
  std::vector<std::string> files;
  // Nodes and edges that were skipped or read partly, and why.
  std::vector<std::string> warnings;
};

// Reads a canvas file. Empty content (a canvas Obsidian has just created),
// "{}" and a canvas without "edges" are valid. InvalidArgument, its message
// starting with path, for content that is not UTF-8 text (invalid UTF-8, NUL
// bytes), not JSON, nested deeper than common::kMaxJsonDepth, not a JSON
// object, or whose "nodes" is not an array. A node or edge of the wrong
// shape (not an object, no "type", a text node without a string "text"…),
// an object with no "nodes" array, and an "edges" that is not an array are
// warnings: the rest is read. Never throws. Linear in the content's size
// plus a sort of the nodes.
Result<CanvasContent> ReadCanvas(std::string_view path, std::string_view content);

// A canvas as a page (the counterpart of ParsePage for ".canvas" paths):
// slug SlugFromPath(path) ("Board.canvas" -> "board--canvas", never a note's
// slug); title the file name without ".canvas"; type "canvas"; no
// frontmatter or timeline; compiled truth CanvasContent::text (its line
// numbers count in that text); links and tags from the text nodes as in a
// note, plus one "mentions" link per file node (a note or canvas is a page
// link, an image or other attachment an attachment link); warnings from
// ReadCanvas. Fails as ReadCanvas does, and when the file name has no
// letter or digit to name a page.
Result<Page> ParseCanvasPage(std::string_view path, std::string_view content);

}  // namespace engram::text
