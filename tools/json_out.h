// JSON output of the command, through nlohmann::json (Debian's nlohmann-json3-dev), so that every
// path gives valid JSON: bytes that are not UTF-8 (file names are bytes) are replaced by U+FFFD.
#pragma once
#include <nlohmann/json.hpp>

namespace poolshim::cli {

using Json = nlohmann::ordered_json;

// Writes j to stdout, indented, followed by a newline.
void print_json(const Json& j);

}  // namespace poolshim::cli
