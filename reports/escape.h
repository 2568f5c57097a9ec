// Escaping of text that comes from inputs (job, node, scenario and model names) for each output
// format, so that no input can break out of its place: an HTML element or attribute, JSON data
// inside a <script> element, a Markdown table cell, a CSV field, a Prometheus label value. Control
// bytes other than line feed and tab (ESC, CR, NUL ...) are written as the visible text \xNN in
// every format but JSON (which escapes them itself).
#pragma once

#include <string>
#include <string_view>

namespace topsim {

// & < > " ' as character references.
std::string html_escape(std::string_view text);
// JSON text made safe inside <script>: '<', '>', '&' and U+2028 / U+2029 as \u escapes (the
// JSON value is unchanged: JSON.parse gives back the same strings).
std::string script_safe_json(std::string_view json);
// One Markdown table cell: Markdown and HTML punctuation backslash-escaped, '|' included, line
// breaks as spaces.
std::string markdown_cell(std::string_view text);
// One CSV field (RFC 4180): quoted, with quotes doubled, when it holds ',', '"', CR or LF; a
// text a spreadsheet would run as a formula (=, +, -, @ first, not a number) starts with '.
std::string csv_field(std::string_view text);
// A Prometheus label value (text exposition format): \ as \\, " as \", line feed as \n.
std::string prometheus_label(std::string_view text);

}  // namespace topsim
