// One way to name enum values: each enum that has names specialises `EnumNames<E>` with a
// table of (value, name) pairs, written once beside the enum; `enum_name`, `parse_enum` and
// `enum_name_list` read that table. Names are what files and the command line use.
//
//   template <> struct EnumNames<Colour> {
//     static constexpr std::array<EnumName<Colour>, 2> table{{{Colour::Red, "red"}, {Colour::Blue, "blue"}}};
//   };
//   enum_name(Colour::Red) == "red"; parse_enum<Colour>("blue") == Colour::Blue;
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace topsim {

template <class E>
struct EnumName {
  E value;
  std::string_view name;
};

// Specialise with `static constexpr std::array<EnumName<E>, N> table`, in the enum's header.
template <class E>
struct EnumNames;

// The name of `value`; "?" for a value missing from the table.
template <class E>
constexpr std::string_view enum_name(E value) {
  for (const EnumName<E>& entry : EnumNames<E>::table)
    if (entry.value == value) return entry.name;
  return "?";
}

// The value named exactly `name`; nullopt for any other text.
template <class E>
constexpr std::optional<E> parse_enum(std::string_view name) {
  for (const EnumName<E>& entry : EnumNames<E>::table)
    if (entry.name == name) return entry.value;
  return std::nullopt;
}

// Every name, in table order.
template <class E>
std::vector<std::string> enum_name_list() {
  std::vector<std::string> names;
  for (const EnumName<E>& entry : EnumNames<E>::table) names.emplace_back(entry.name);
  return names;
}

// Every value, in table order.
template <class E>
std::vector<E> enum_values() {
  std::vector<E> values;
  for (const EnumName<E>& entry : EnumNames<E>::table) values.push_back(entry.value);
  return values;
}

}  // namespace topsim
