#include "core/environment.h"

#include <cstdlib>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_join.h"
#include "core/error.h"

namespace tessel {

std::optional<std::string> EnvString(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr) return std::nullopt;
  std::string value(absl::StripAsciiWhitespace(v));
  if (value.empty()) return std::nullopt;
  return value;
}

bool EnvSwitch(const char* name, bool otherwise) {
  const std::optional<std::string> value = EnvString(name);
  if (!value) return otherwise;
  const std::string v = absl::AsciiStrToLower(*value);
  if (v == "1" || v == "true" || v == "on" || v == "yes") return true;
  if (v == "0" || v == "false" || v == "off" || v == "no") return false;
  ThrowOpError("environment", name, "='", *value,
               "' is not a switch: 0 or 1, false or true, off or on, no or yes");
}

std::optional<int64_t> EnvInteger(const char* name, int64_t lo, int64_t hi) {
  const std::optional<std::string> value = EnvString(name);
  if (!value) return std::nullopt;
  int64_t n = 0;
  if (!absl::SimpleAtoi(*value, &n) || n < lo || n > hi) {
    ThrowOpError("environment", name, "='", *value, "' is not an integer in [", lo, ", ", hi, "]");
  }
  return n;
}

std::optional<std::string> EnvChoice(const char* name, const std::vector<std::string>& choices) {
  const std::optional<std::string> value = EnvString(name);
  if (!value) return std::nullopt;
  for (const std::string& c : choices) {
    if (*value == c) return value;
  }
  ThrowOpError("environment", name, "='", *value, "' is none of ", absl::StrJoin(choices, ", "));
}

}  // namespace tessel
