// The record of a result set (docs/results-format.md, "Result sets"): DIR/.topsim-set.json names
// the run that every file of the folder's set belongs to, and each file's size and digest
// (util/digest.h). It is written last when a set is swapped into its folder (cli/output_file.h),
// so it tells a whole set from a mixture: a file of another run, a file cut short or changed
// since, a file missing. Schema "topsim.set/1":
//   {"schema": "topsim.set/1", "run": "<16 hex digits>",
//    "files": {"<name>": {"bytes": N, "digest": "<16 hex digits>"}, ...}}   (names sorted)
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "util/expected.h"

namespace topsim {

inline constexpr std::string_view kSetRecordName = ".topsim-set.json";

// What a file's bytes are: their count, their newlines and their digest (util/digest.h).
struct FileDigest {
  uint64_t bytes = 0;
  uint64_t lines = 0;
  uint64_t digest = 0;
};

struct SetRecord {
  std::string run;                          // the run the files belong to, 16 hexadecimal digits
  std::map<std::string, FileDigest> files;  // by plain file name; `lines` is not recorded (0)
};

std::string render_set_record(const SetRecord& record);
// A record from its text; `source` names it in errors: "<source>: /files/x: ...".
[[nodiscard]] Expected<SetRecord> parse_set_record(std::string_view text, const std::string& source);
// DIR's record; nullopt when there is none (a folder written by an older topsim, or whose set
// was being swapped in when the writer was killed). Error: "<dir>/.topsim-set.json: <pointer>: ...".
[[nodiscard]] Expected<std::optional<SetRecord>> load_set_record(const std::string& dir);

// The digest of the regular file at `path`, streamed (any size). Error: "cannot open '<path>': ...".
[[nodiscard]] Expected<FileDigest> digest_file(const std::string& path);

// Every file the record names is in `dir`, a regular file of the recorded size and digest (files
// in `known` compared by the digest given there, not read again). The digests read (by name).
// Error naming the first file that is not: "<dir>/<name>: not the one written with run <id>:
// missing" (or "N bytes, M expected", "its bytes differ").
[[nodiscard]] Expected<std::map<std::string, FileDigest>> verify_set(const std::string& dir, const SetRecord& record,
                                                                     const std::map<std::string, FileDigest>& known = {});

}  // namespace topsim
