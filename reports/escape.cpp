#include "reports/escape.h"

#include "util/markup.h"

namespace topsim {

std::string html_escape(std::string_view text) { return escape_markup(text, true); }

std::string script_safe_json(std::string_view json) {
  std::string out;
  out.reserve(json.size());
  for (size_t i = 0; i < json.size(); ++i) {
    const char c = json[i];
    if (c == '<')
      out += "\\u003c";
    else if (c == '>')
      out += "\\u003e";
    else if (c == '&')
      out += "\\u0026";
    else if (c == '\xE2' && i + 2 < json.size() && json[i + 1] == '\x80' && (json[i + 2] == '\xA8' || json[i + 2] == '\xA9'))
      out += json[i + 2] == '\xA8' ? "\\u2028" : "\\u2029", i += 2;
    else
      out += c;
  }
  return out;
}

std::string markdown_cell(std::string_view text) {
  constexpr std::string_view kSpecial = "\\`*_[]<>|~&";
  std::string out;
  for (char c : text) {
    if (c == '\n' || c == '\r')
      out += ' ';
    else if (kSpecial.find(c) != std::string_view::npos)
      out += '\\', out += c;
    else
      out += c;
  }
  return out;
}

std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string prometheus_label(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

}  // namespace topsim
