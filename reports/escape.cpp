#include "reports/escape.h"

#include <cstdlib>

#include "util/markup.h"

namespace topsim {
namespace {

// `text` with every control byte but line feed and tab (0x00-0x1f, 0x7f: ESC, CR, NUL ...) written
// as the four visible characters \xNN: no input string carries a terminal escape into a file.
std::string visible_controls(std::string_view text) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto b = static_cast<unsigned char>(c);
    if ((b < 0x20 && c != '\n' && c != '\t') || b == 0x7f)
      out += "\\x", out += kDigits[b >> 4], out += kDigits[b & 15];
    else
      out += c;
  }
  return out;
}

// Whether a spreadsheet would read `text` as a formula: it starts with = + - @ (or a tab or CR,
// which some strip first) and is not a plain number such as -1.5 (OWASP, "CSV Injection",
// https://owasp.org/www-community/attacks/CSV_Injection, retrieved 2026-11).
bool formula_like(std::string_view text) {
  if (text.empty() || std::string_view("=+-@\t\r").find(text.front()) == std::string_view::npos) return false;
  const std::string copy(text);
  char* end = nullptr;
  std::strtod(copy.c_str(), &end);
  return end != copy.c_str() + copy.size();
}

}  // namespace

std::string html_escape(std::string_view text) { return escape_markup(visible_controls(text), true); }

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
  for (char c : visible_controls(text)) {
    if (c == '\n' || c == '\r')
      out += ' ';
    else if (kSpecial.find(c) != std::string_view::npos)
      out += '\\', out += c;
    else
      out += c;
  }
  return out;
}

std::string csv_field(std::string_view raw) {
  const std::string text = (formula_like(raw) ? "'" : "") + visible_controls(raw);
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string prometheus_label(std::string_view text) {
  std::string out;
  for (char c : visible_controls(text)) {
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
