// The message of what a call throws, or "no exception": tests compare messages a user reads.
#pragma once

#include <exception>
#include <string>

template <class Fn>
std::string error_of(Fn&& fn) {
  try {
    fn();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "no exception";
}
