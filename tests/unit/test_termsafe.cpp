// termsafe: text iolab did not write is shown with every control visible, printable UTF-8
// unchanged, and the same result whether it is printed whole, formatted, or in pieces through
// the escaping stream.
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>

extern "C" {
#include "util/termsafe.h"
}

namespace
{

std::string esc(const std::string &s)
{
    std::string buf(s.size() * TERMSAFE_MAX_GROWTH + 1, '\0');
    termsafe_str(s.c_str(), &buf[0], buf.size());
    return buf.c_str();
}

// What a stream receives when text goes through termsafe_open() in pieces of `piece` bytes.
std::string through_stream(const std::string &s, size_t piece)
{
    char *mem = nullptr;
    size_t len = 0;
    FILE *to = open_memstream(&mem, &len);
    REQUIRE(to);
    FILE *f = termsafe_open(to);
    REQUIRE(f);
    for (size_t i = 0; i < s.size(); i += piece) {
        fwrite(s.data() + i, 1, std::min(piece, s.size() - i), f);
        fflush(f); // every piece reaches the escaping on its own
    }
    REQUIRE(fclose(f) == 0);
    REQUIRE(fclose(to) == 0);
    std::string out(mem, len);
    free(mem);
    return out;
}

// No byte a terminal would act on: C0 but newline and tab, DEL, C1 (raw or as UTF-8).
bool inert(const std::string &s)
{
    for (size_t i = 0; i < s.size(); i++) {
        unsigned char c = (unsigned char)s[i];
        if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f)
            return false;
        if (c == 0xc2 && i + 1 < s.size() && (unsigned char)s[i + 1] < 0xa0)
            return false;
        if (c >= 0x80 && c < 0xa0 && (i == 0 || (unsigned char)s[i - 1] < 0xc0))
            return false; // a C1 byte that no lead byte claims
    }
    return true;
}

const std::string hostile = "title \x1b]0;pwned\x07 \x1b[2J \x9b"
                            "31m \xc2\x9b"
                            "1m done\r\x7f";

} // namespace

TEST_CASE("termsafe: C0 controls and DEL in caret notation, newline and tab kept")
{
    CHECK(esc("a\x1b[2Jb") == "a^[[2Jb");
    CHECK(esc("\x1b]0;pwned\x07") == "^[]0;pwned^G");
    CHECK(esc("cr\rlf\ntab\t") == "cr^Mlf\ntab\t");
    CHECK(esc(std::string("\x01\x1f\x7f", 3)) == "^A^_^?");
    CHECK(esc("plain text, 100% ASCII") == "plain text, 100% ASCII");
}

TEST_CASE("termsafe: C1 controls and bytes that are not UTF-8 are escaped, UTF-8 text is not")
{
    CHECK(esc("\xc2\x9b"
              "31m") == "\\u009b31m"); // CSI as a character
    CHECK(esc("\x9b"
              "31m") == "\\x9b31m"); // CSI as a raw byte
    CHECK(esc("caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x99\x82") ==
          "caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x99\x82");       // é → 🙂 pass
    CHECK(esc("\xc2\xa0nbsp") == "\xc2\xa0nbsp");             // U+00A0 is the first printable one
    CHECK(esc("\xc0\xaf") == "\\xc0\\xaf");                   // overlong '/'
    CHECK(esc("\xed\xa0\x80") == "\\xed\\xa0\\x80");          // a surrogate
    CHECK(esc("\xf4\x90\x80\x80") == "\\xf4\\x90\\x80\\x80"); // past U+10FFFF
    CHECK(esc("cut \xe2\x86") == "cut \\xe2\\x86");           // a character cut short
    CHECK(esc("\xff\xfe") == "\\xff\\xfe");
}

TEST_CASE("termsafe: nothing a terminal acts on survives, and escaping twice changes nothing")
{
    std::string once = esc(hostile);
    CHECK(inert(once));
    CHECK(once.find("]0;pwned") != std::string::npos); // still readable
    CHECK(esc(once) == once);
}

TEST_CASE("termsafe: a short buffer is cut at a whole escape or character, and terminated")
{
    char buf[8];
    termsafe_str("abcde\x1b[", buf, 7); // "abcde" and "^[" would need 8 bytes with the NUL
    CHECK(std::string(buf) == "abcde");
    termsafe_str("ab\xe2\x86\x92xyz", buf, 5); // the arrow does not fit whole after "ab"
    CHECK(std::string(buf) == "ab");
    termsafe_str("abc", buf, 1);
    CHECK(std::string(buf) == "");
}

TEST_CASE("termsafe: printf formats first, then escapes what the arguments brought")
{
    char *mem = nullptr;
    size_t len = 0;
    FILE *f = open_memstream(&mem, &len);
    REQUIRE(f);
    CHECK(termsafe_fprintf(f, "%s: %d%%\n", "mode \x1b[31mred", 5) == 0);
    std::string big(3000, 'x');
    CHECK(termsafe_fprintf(f, "%s\x07\n", big.c_str()) == 0); // past the stack buffer
    fclose(f);
    std::string out(mem, len);
    free(mem);
    CHECK(out == "mode ^[[31mred: 5%\n" + big + "^G\n");
}

TEST_CASE("termsafe: the stream escapes a character split between writes as if it were whole")
{
    std::string whole = esc(hostile + " caf\xc3\xa9 \xf0\x9f\x99\x82 end \xe2\x86");
    for (size_t piece : {1, 2, 3, 5, 7, 64})
        CHECK(through_stream(hostile + " caf\xc3\xa9 \xf0\x9f\x99\x82 end \xe2\x86", piece) ==
              whole);
}

TEST_CASE("termsafe: bidi controls are escaped, other characters of their block are not")
{
    // U+202A..U+202E and U+2066..U+2069 reorder the text after them ("exe.txt" read backwards).
    CHECK(esc("ann\xe2\x80\xaegnp.exe") == "ann\\u202egnp.exe");
    CHECK(esc("\xe2\x80\xaa\xe2\x80\xab\xe2\x80\xac\xe2\x80\xad") ==
          "\\u202a\\u202b\\u202c\\u202d");
    CHECK(esc("\xe2\x81\xa6x\xe2\x81\xa7y\xe2\x81\xa8z\xe2\x81\xa9") ==
          "\\u2066x\\u2067y\\u2068z\\u2069");
    // Their neighbours are printable: an en dash (U+2013), a bullet (U+2022), U+2070.
    CHECK(esc("a\xe2\x80\x93"
              "b\xe2\x80\xa2"
              "c\xe2\x81\xb0") == "a\xe2\x80\x93"
                                  "b\xe2\x80\xa2"
                                  "c\xe2\x81\xb0");
    // The same through the stream, a byte at a time, and through printf.
    CHECK(through_stream("x\xe2\x80\xaey", 1) == "x\\u202ey");
    char *mem = nullptr;
    size_t len = 0;
    FILE *f = open_memstream(&mem, &len);
    REQUIRE(f);
    termsafe_fprintf(f, "[%s]", "\xe2\x81\xa7");
    fclose(f);
    CHECK(std::string(mem, len) == "[\\u2067]");
    free(mem);
}
