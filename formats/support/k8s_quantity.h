// Kubernetes resource quantities ("8", "500m", "1.5Gi", "1e3"), as the API server reads them
// (k8s.io/apimachinery pkg/api/resource/quantity.go and suffix.go, commit eed236ce):
//   <quantity> ::= <sign><number><suffix>; <number> ::= digits | digits.digits | .digits | digits.
//   <suffix>   ::= binary SI (Ki Mi Gi Ti Pi Ei = 2^10..2^60)
//                | decimal SI (n u m "" k M G T P E = 10^-9..10^18)
//                | e<signed int> or E<signed int> (a decimal exponent; a bare E is exa)
// Values are kept exact (no floating point) until converted: to an integer the way Quantity's
// Value() and MilliValue() do, rounding up (0.1m cpu is 1 thousandth of a core).
#pragma once

#include <cstdint>
#include <string_view>

#include "util/expected.h"

namespace topsim {

// An integer in `scale` units: scale 0 gives Value() (ceil(q)), scale 3 gives MilliValue()
// (ceil(1000 q)). Errors (no context; the caller adds where): "'1.5X' is not a Kubernetes quantity
// (...)", or a value beyond int64 in those units. Negative values are returned as such.
// At most 19 significant digits (Kubernetes accepts more but rounds to nano units anyway).
[[nodiscard]] Expected<int64_t> parse_quantity(std::string_view text, int scale = 0);

// The quantity as a number (for weights such as Kueue's fairSharing.weight: "0.5", "2", "500m").
[[nodiscard]] Expected<double> parse_quantity_number(std::string_view text);

// The integer units Kueue counts a resource in (pkg/resources/requests.go ResourceValue): 3 for
// "cpu" (thousandths of a core), 0 for every other resource (bytes, cards, pods).
int kueue_scale(std::string_view resource);

}  // namespace topsim
