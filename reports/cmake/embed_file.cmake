# Writes OUT, a C++ source defining `std::string_view NAME()` that returns the bytes of IN,
# verbatim (a licence header in IN is kept). Run as: cmake -DIN=... -DOUT=... -DNAME=... -P embed_file.cmake
file(READ "${IN}" hex HEX)
string(LENGTH "${hex}" hex_length)
math(EXPR size "${hex_length} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "((0x[0-9a-f][0-9a-f],)(0x[0-9a-f][0-9a-f],)(0x[0-9a-f][0-9a-f],)(0x[0-9a-f][0-9a-f],)(0x[0-9a-f][0-9a-f],)(0x[0-9a-f][0-9a-f],)(0x[0-9a-f][0-9a-f],)(0x[0-9a-f][0-9a-f],))" "\\1\n" bytes "${bytes}")
file(WRITE "${OUT}" "// Generated from ${IN} at build time (reports/cmake/embed_file.cmake); do not edit.\n"
  "#include <string_view>\n\nnamespace topsim {\nnamespace {\nconstexpr unsigned char kBytes[${size}] = {\n${bytes}};\n}  // namespace\n\n"
  "std::string_view ${NAME}() { return {reinterpret_cast<const char*>(kBytes), sizeof kBytes}; }\n\n}  // namespace topsim\n")
