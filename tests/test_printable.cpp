// printable(): what may reach a terminal from a file's names.
#include <gtest/gtest.h>

#include <string>

#include "util/printable.h"

namespace vatkit {
namespace {

TEST(Printable, EscapesControlBytesAndBackslash) {
  EXPECT_EQ(printable("a\x1b[31mb\rc\x07"
                      "d\ne\tf\x7fg\\h"),
            "a\\x1b[31mb\\x0dc\\x07d\\x0ae\\x09f\\x7fg\\\\h");
  EXPECT_EQ(printable(std::string("nul\0x", 5)), "nul\\x00x");
}

TEST(Printable, EscapesBidiControlsAndC1) {
  // U+202E RIGHT-TO-LEFT OVERRIDE, U+2066 LEFT-TO-RIGHT ISOLATE, U+200F RIGHT-TO-LEFT MARK,
  // U+2028 LINE SEPARATOR, U+009B (C1 CSI).
  EXPECT_EQ(printable("x\xE2\x80\xAEy"), "x\\u{202E}y");
  EXPECT_EQ(printable("\xE2\x81\xA6"
                      "a"
                      "\xE2\x81\xA9"),
            "\\u{2066}a\\u{2069}");
  EXPECT_EQ(printable("\xE2\x80\x8F\xE2\x80\xA8\xC2\x9B"), "\\u{200F}\\u{2028}\\u{9B}");
  EXPECT_EQ(printable("\xE2\x80\xAA\xE2\x80\xAB\xE2\x80\xAC\xE2\x80\xAD\xD8\x9C"),
            "\\u{202A}\\u{202B}\\u{202C}\\u{202D}\\u{61C}");
}

TEST(Printable, EscapesEachByteOfInvalidUtf8) {
  EXPECT_EQ(printable("a\xFF"
                      "b"),
            "a\\xffb");
  EXPECT_EQ(printable("\x80"), "\\x80");                             // stray continuation byte
  EXPECT_EQ(printable("\xC0\xAF"), "\\xc0\\xaf");                    // overlong '/'
  EXPECT_EQ(printable("\xE0\x80\xAF"), "\\xe0\\x80\\xaf");           // overlong, three bytes
  EXPECT_EQ(printable("\xED\xA0\x80"), "\\xed\\xa0\\x80");           // a surrogate
  EXPECT_EQ(printable("\xF4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");  // above U+10FFFF
  EXPECT_EQ(printable("\xE6\x97"), "\\xe6\\x97");                    // truncated
  EXPECT_EQ(printable("\xE6\x97"
                      "A"),
            "\\xe6\\x97A");
}

TEST(Printable, KeepsPrintableUtf8) {
  const std::string text = "Fox \xC3\xA9t\xC3\xA9 \xE6\x97\xA5\xE6\x9C\xAC \xF0\x9F\xA6\x8A ~!";
  EXPECT_EQ(printable(text), text);
  EXPECT_EQ(printable(""), "");
}

TEST(Printable, KeepModeIsIdempotentOnEscapedText) {
  const std::string once = printable("a\\b\x1b\xE2\x80\xAE\xFF");
  EXPECT_EQ(once, "a\\\\b\\x1b\\u{202E}\\xff");
  EXPECT_EQ(printable(once, Backslash::Keep), once);
  EXPECT_EQ(printable("C:\\dir\r", Backslash::Keep), "C:\\dir\\x0d");
}

}  // namespace
}  // namespace vatkit
