// Error-carrying return values for the core and sim layers.
//
// No exception crosses the public API of `core` or `sim`: a function that can fail returns
// `Expected<T>` (a value or an `Error`) or `Status` (nothing or an `Error`). An `Error` holds one
// line of text that already carries its context (file, line, field), ready for the CLI to print.
#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>

#include "util/one_line.h"

namespace topsim {

// One line of text: the constructor escapes control bytes (a newline or CR from an input would
// split the line) and invalid UTF-8 (util/one_line.h), so a message can quote input as it came.
struct Error {
  Error() = default;
  Error(std::string text) : message(one_line(text)) {}  // NOLINT: implicit by design
  Error(const char* text) : message(one_line(text)) {}  // NOLINT: implicit by design
  // An error that is a bug in topsim (a violated invariant), not a problem with the input.
  static Error bug(std::string text) {
    Error e(std::move(text));
    e.internal = true;
    return e;
  }
  std::string message;    // one line, no trailing newline
  bool internal = false;  // a bug: the CLI exits 3 with "internal error, please report"
};

template <class T>
class [[nodiscard]] Expected {
 public:
  Expected(T value) : state_(std::move(value)) {}      // NOLINT: implicit by design
  Expected(Error error) : state_(std::move(error)) {}  // NOLINT: implicit by design

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }

  // REQUIRES: ok()
  T& value() & {
    assert(ok() && "Expected::value() on an error");
    return std::get<0>(state_);
  }
  const T& value() const& {
    assert(ok() && "Expected::value() on an error");
    return std::get<0>(state_);
  }
  T&& value() && {
    assert(ok() && "Expected::value() on an error");
    return std::get<0>(std::move(state_));
  }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  // REQUIRES: !ok()
  const Error& error() const {
    assert(!ok() && "Expected::error() on a value");
    return std::get<1>(state_);
  }

 private:
  std::variant<T, Error> state_;
};

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error error) : error_(std::move(error)), ok_(false) {}  // NOLINT: implicit by design
  static Status success() { return Status(); }

  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  // REQUIRES: !ok()
  const Error& error() const {
    assert(!ok_ && "Status::error() on success");
    return error_;
  }

 private:
  Error error_;
  bool ok_ = true;
};

}  // namespace topsim
