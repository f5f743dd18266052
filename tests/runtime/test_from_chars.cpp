// util/from_chars.h: std::from_chars' contract for float and double, whichever standard library
// the build uses (libc++ 14 takes the strtod_l path).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string_view>

#include "util/from_chars.h"

namespace vatkit {
namespace {

template <class T>
std::from_chars_result parse(std::string_view text, T& value) {
  return detail::floating_from_chars(text.data(), text.data() + text.size(), value);
}

TEST(FromChars, ReadsDecimalsExactlyAndStopsWhereTheNumberEnds) {
  double d = 0.0;
  auto r = parse("0.1", d);
  EXPECT_EQ(r.ec, std::errc());
  EXPECT_EQ(d, 0.1);
  r = parse("-2.5e-3xyz", d);
  EXPECT_EQ(r.ec, std::errc());
  EXPECT_EQ(d, -2.5e-3);
  EXPECT_EQ(std::string_view(r.ptr), "xyz");
  float f = 0.0f;
  r = parse("3.4028235e38", f);  // FLT_MAX's shortest decimal, rounded straight to float
  EXPECT_EQ(r.ec, std::errc());
  EXPECT_EQ(f, 3.4028234663852886e38f);
  r = parse("0.1", f);
  EXPECT_EQ(f, 0.1f);
}

TEST(FromChars, RefusesWhatFromCharsRefuses) {
  double d = 7.0;
  EXPECT_EQ(parse("+1", d).ec, std::errc::invalid_argument);
  EXPECT_EQ(parse(" 1", d).ec, std::errc::invalid_argument);
  EXPECT_EQ(parse("", d).ec, std::errc::invalid_argument);
  EXPECT_EQ(parse("abc", d).ec, std::errc::invalid_argument);
  EXPECT_EQ(d, 7.0);  // untouched
  const std::string_view hex = "0x10";
  auto r = parse(hex, d);  // the general format reads the "0" and stops at 'x'
  EXPECT_EQ(r.ec, std::errc());
  EXPECT_EQ(d, 0.0);
  EXPECT_EQ(r.ptr, hex.data() + 1);
  float f = 5.0f;
  EXPECT_EQ(parse("1e60", f).ec, std::errc::result_out_of_range);
  EXPECT_EQ(f, 5.0f);
  EXPECT_EQ(parse("-1e400", d).ec, std::errc::result_out_of_range);
  EXPECT_EQ(d, 0.0);
}

}  // namespace
}  // namespace vatkit
