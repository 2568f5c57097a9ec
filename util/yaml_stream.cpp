#include "util/yaml_stream.h"

namespace topsim {

std::vector<YamlDocumentSpan> yaml_document_spans(std::string_view text, size_t from) {
  std::vector<YamlDocumentSpan> documents{{from, from, 1}};
  int64_t line_number = 0;
  for (size_t at = from; at < text.size();) {
    const size_t newline = text.find('\n', at);
    const size_t next = newline == std::string_view::npos ? text.size() : newline + 1;
    const std::string_view line = text.substr(at, next - at);
    ++line_number;
    if (line.rfind("---", 0) == 0 && (line.size() == 3 || line[3] == ' ' || line[3] == '\r' || line[3] == '\n'))
      documents.push_back({next, next, line_number + 1});
    else
      documents.back().end = next;
    at = next;
  }
  return documents;
}

}  // namespace topsim
