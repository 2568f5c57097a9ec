// Where the documents of a YAML stream lie in its text, found by reading lines only (no YAML
// parser): the readers load one document at a time from it, and the YAML fuzz mutator picks one
// to change. yaml-cpp 0.7's LoadAll loops forever, allocating, on some malformed streams (fixed
// upstream in jbeder/yaml-cpp#1319, not in Debian's 0.7); one Load per document does not.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace topsim {

// One document: bytes [begin, end) of the text (its lines with their newlines) and the 1-based
// line it starts on, counted from where the split began.
struct YamlDocumentSpan {
  size_t begin = 0;
  size_t end = 0;
  int64_t first_line = 1;
};

// The documents of `text` from byte `from` on, split at "---" lines (the line "---", or "---"
// followed by a space or a carriage return); the separators belong to none. Always at least one
// (an empty text is one empty document at `from`), and every line of the text is in one document
// or is a separator.
std::vector<YamlDocumentSpan> yaml_document_spans(std::string_view text, size_t from = 0);

}  // namespace topsim
