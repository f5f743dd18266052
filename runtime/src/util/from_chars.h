// std::from_chars for float and double on every standard library vatkit builds with. libstdc++
// (11 and later) and MSVC have it; LLVM's libc++ 14 declares the floating-point overloads deleted.
// There the same contract is met with the C locale's strtod_l / strtof_l: no locale, no leading
// whitespace or '+', hexadecimal only after an explicit "0x" is refused (as from_chars' general
// format parses "0x1p3" as 0 and stops at 'x'), the value untouched and result_out_of_range when
// the text is out of the type's range. Cost: a copy of the text on that path; thread-safe.
#pragma once

#include <charconv>
#include <system_error>

#if !defined(__cpp_lib_to_chars)
#include <cerrno>
#include <clocale>
#include <cstdlib>
#include <string>
#if __has_include(<xlocale.h>)
#include <xlocale.h>
#endif
#endif

namespace vatkit::detail {

#if defined(__cpp_lib_to_chars)
template <class T>
std::from_chars_result floating_from_chars(const char* first, const char* last, T& value) {
  return std::from_chars(first, last, value);
}
#else
template <class T>
std::from_chars_result floating_from_chars(const char* first, const char* last, T& value) {
  const char* p = first;
  if (p != last && *p == '-') ++p;
  if (p == last || *p == '+' || *p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '\f' || *p == '\v') {
    return {first, std::errc::invalid_argument};
  }
  if (last - p >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {  // from_chars reads the "0" only
    value = first != p ? T(-0.0) : T(0.0);
    return {p + 1, std::errc()};
  }
  static const locale_t c_locale = newlocale(LC_ALL_MASK, "C", locale_t(nullptr));
  const std::string text(first, last);
  char* end = nullptr;
  errno = 0;
  T parsed;
  if constexpr (sizeof(T) == sizeof(float)) {
    parsed = strtof_l(text.c_str(), &end, c_locale);
  } else {
    parsed = strtod_l(text.c_str(), &end, c_locale);
  }
  if (end == text.c_str()) return {first, std::errc::invalid_argument};
  const char* ptr = first + (end - text.c_str());
  if (errno == ERANGE && (parsed > T(1) || parsed < T(-1))) return {ptr, std::errc::result_out_of_range};
  value = parsed;
  return {ptr, std::errc()};
}
#endif

}  // namespace vatkit::detail
