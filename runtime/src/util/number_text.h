// The one spelling of a number in vatkit's error messages: "%.9g", enough digits to tell any two
// floats apart, "inf" and "nan" as the C library writes them.
#pragma once

#include <cstdio>
#include <string>

namespace vatkit::detail {

inline std::string number_text(double v) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.9g", v);
  return text;
}

}  // namespace vatkit::detail
