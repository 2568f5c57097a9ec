// Escaping text for XML and HTML: one loop for the NCCL XML writer and the HTML report.
#pragma once

#include <string>
#include <string_view>

namespace topsim {

// `text` with &, <, > and " replaced by their entities (and ' by &#39; when `apostrophe`), for
// element text and double- (or single-) quoted attribute values.
std::string escape_markup(std::string_view text, bool apostrophe = false);

}  // namespace topsim
