// FindPropertyInFile: just enough of the Java .properties format to pull one key out of a
// config file, so `snowcar state --config FILE` finds the socket without the full config
// module (which would also insist on every required key being valid).
#include <sstream>

#include "snowcar/api/state_cli.h"
#include "snowcar/common/file_read.h"

namespace snowcar::api {
namespace {

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\f'; }

// Joins backslash-continued lines into logical lines, dropping comments and blank lines.
std::vector<std::string> LogicalLines(std::istream& in) {
  std::vector<std::string> out;
  std::string line, pending;
  bool continuing = false;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    size_t start = 0;
    while (start < line.size() && IsBlank(line[start])) ++start;
    std::string_view text(line.data() + start, line.size() - start);
    if (!continuing && (text.empty() || text[0] == '#' || text[0] == '!')) continue;
    // An odd number of trailing backslashes continues the line.
    size_t slashes = 0;
    while (slashes < text.size() && text[text.size() - 1 - slashes] == '\\') ++slashes;
    const bool continues = slashes % 2 == 1;
    if (continues) text.remove_suffix(1);
    pending.append(text);
    continuing = continues;
    if (!continuing) {
      out.push_back(std::move(pending));
      pending.clear();
    }
  }
  if (!pending.empty()) out.push_back(std::move(pending));
  return out;
}

// Resolves the escapes a socket path could plausibly contain (\\, \t, \n, \:, \=, \ ).
std::string Unescape(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size()) {
      const char c = text[++i];
      out += c == 't' ? '\t' : c == 'n' ? '\n' : c == 'r' ? '\r' : c;
    } else {
      out += text[i];
    }
  }
  return out;
}

}  // namespace

Result<std::optional<std::string>> FindPropertyInFile(const std::string& file,
                                                      std::string_view key) {
  SNOWCAR_ASSIGN_OR_RETURN(const std::string text, ReadFileBounded(file, kConfigFileLimit));
  std::istringstream in(text);
  std::optional<std::string> found;  // the last occurrence wins, as in java.util.Properties
  for (const std::string& line : LogicalLines(in)) {
    size_t end = 0;
    while (end < line.size() && !IsBlank(line[end]) && line[end] != '=' && line[end] != ':') {
      if (line[end] == '\\') ++end;
      ++end;
    }
    end = std::min(end, line.size());
    if (Unescape(std::string_view(line).substr(0, end)) != key) continue;
    size_t v = end;
    while (v < line.size() && IsBlank(line[v])) ++v;
    if (v < line.size() && (line[v] == '=' || line[v] == ':')) ++v;
    while (v < line.size() && IsBlank(line[v])) ++v;
    found = Unescape(std::string_view(line).substr(v));
  }
  return found;
}

Result<std::string> ResolveSocketPath(
    const std::string& socket_flag, const std::string& config_file,
    const std::function<std::optional<std::string>(const char*)>& getenv) {
  if (!socket_flag.empty()) return socket_flag;
  if (!config_file.empty()) {
    SNOWCAR_ASSIGN_OR_RETURN(auto value, FindPropertyInFile(config_file, "socket.path"));
    if (value.has_value() && !value->empty()) return *value;
  }
  if (getenv) {
    if (auto env = getenv("SNOWCAR_SOCKET_PATH"); env.has_value() && !env->empty()) return *env;
  }
  return std::string("/var/run/snowcar/snowcar.sock");
}

}  // namespace snowcar::api
