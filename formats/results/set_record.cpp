#include "formats/results/set_record.h"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "formats/support/json_reader.h"
#include "util/digest.h"
#include "util/input_file.h"

namespace topsim {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

constexpr std::string_view kSetSchema = "topsim.set/1";

bool is_hex64(const Json& value) {
  if (!value.is_string()) return false;
  const std::string& text = value.get_ref<const std::string&>();
  return text.size() == 16 && text.find_first_not_of("0123456789abcdef") == std::string::npos;
}

// A name the record may hold: a plain file name, never a path out of the folder.
bool plain_file_name(const std::string& name) {
  return !name.empty() && name != "." && name != ".." && name.find('/') == std::string::npos &&
         name.find('\0') == std::string::npos;
}

Expected<SetRecord> read_set_record(const Json& root, const std::string& source) {
  JsonErrors errors(source);
  if (!root.is_object() || root.value("schema", Json()) != std::string(kSetSchema)) {
    errors.fail("/schema", "not a topsim set record (expected \"" + std::string(kSetSchema) + "\")");
    return errors.error();
  }
  SetRecord record;
  if (!is_hex64(root.value("run", Json()))) errors.fail("/run", "expected 16 hexadecimal digits");
  const Json files = root.value("files", Json());
  if (!files.is_object()) errors.fail("/files", "expected an object of files");
  if (errors.failed()) return errors.error();
  record.run = root["run"].get<std::string>();
  for (const auto& [name, file] : files.items()) {
    const std::string pointer = "/files/" + name;
    if (!plain_file_name(name)) errors.fail(pointer, "not a plain file name");
    if (!file.is_object() || !file.value("bytes", Json()).is_number_unsigned() || !is_hex64(file.value("digest", Json())))
      errors.fail(pointer, "expected {\"bytes\", \"digest\"}");
    if (errors.failed()) return errors.error();
    record.files[name] = {file["bytes"].get<uint64_t>(), 0, std::stoull(file["digest"].get<std::string>(), nullptr, 16)};
  }
  return record;
}

}  // namespace

std::string render_set_record(const SetRecord& record) {
  Json files = Json::object();
  for (const auto& [name, file] : record.files) files[name] = {{"bytes", file.bytes}, {"digest", hex64(file.digest)}};
  const Json root = {{"schema", kSetSchema}, {"run", record.run}, {"files", std::move(files)}};
  return root.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

Expected<std::optional<SetRecord>> load_set_record(const std::string& dir) {
  const std::string path = (fs::path(dir) / std::string(kSetRecordName)).string();
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(path, ec))) return std::optional<SetRecord>();
  auto text = read_text_file(path);
  if (!text) return text.error();
  auto record = parse_set_record(*text, path);
  if (!record) return record.error();
  return std::optional<SetRecord>(std::move(record).value());
}

Expected<SetRecord> parse_set_record(std::string_view text, const std::string& source) {
  auto root = parse_json_text(text, source);
  if (!root) return root.error();
  return read_set_record(*root, source);
}

Expected<FileDigest> digest_file(const std::string& path) {
  auto opened = open_input_file(path);
  if (!opened) return opened.error();
  FileDigest digest;
  Digest64 bytes;
  std::string buffer(size_t{1} << 20, '\0');
  while (opened->read(buffer.data(), static_cast<std::streamsize>(buffer.size())) || opened->gcount() > 0) {
    const std::string_view chunk(buffer.data(), static_cast<size_t>(opened->gcount()));
    bytes.add(chunk);
    digest.bytes += chunk.size();
    digest.lines += static_cast<uint64_t>(std::count(chunk.begin(), chunk.end(), '\n'));
  }
  if (opened->bad()) return Error{"cannot read '" + path + "'"};
  digest.digest = bytes.value();
  return digest;
}

Expected<std::map<std::string, FileDigest>> verify_set(const std::string& dir, const SetRecord& record,
                                                       const std::map<std::string, FileDigest>& known) {
  std::map<std::string, FileDigest> read;
  for (const auto& [name, expected] : record.files) {
    const std::string path = (fs::path(dir) / name).string();
    const std::string other = path + ": not the one written with run " + record.run + ": ";
    std::error_code ec;
    if (!fs::exists(fs::symlink_status(path, ec))) return Error{other + "missing"};
    const auto given = known.find(name);
    auto digest = given != known.end() ? Expected<FileDigest>(given->second) : digest_file(path);
    if (!digest) return digest.error();
    if (digest->bytes != expected.bytes)
      return Error{other + std::to_string(digest->bytes) + " bytes, " + std::to_string(expected.bytes) + " expected"};
    if (digest->digest != expected.digest) return Error{other + "its bytes differ"};
    read[name] = *digest;
  }
  return read;
}

}  // namespace topsim
