// Settings read from the environment (README, "Inspecting what runs"), parsed one way.
#ifndef TESSEL_CORE_ENVIRONMENT_H_
#define TESSEL_CORE_ENVIRONMENT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tessel {

// The value without the spaces around it; nullopt when unset or empty.
std::optional<std::string> EnvString(const char* name);

// A switch: 0 / 1, false / true, off / on, no / yes (any case; spaces around are ignored).
// Unset or empty: `otherwise`. Anything else is an Error naming the variable: a setting that
// reads as something it is not would silently change what runs.
bool EnvSwitch(const char* name, bool otherwise);

// An integer in [lo, hi] (spaces around ignored); nullopt when unset or empty. Anything else,
// a number out of range included, is an Error naming the variable and the range.
std::optional<int64_t> EnvInteger(const char* name, int64_t lo, int64_t hi);

// One of `choices` (exactly); nullopt when unset or empty; anything else is an Error.
std::optional<std::string> EnvChoice(const char* name, const std::vector<std::string>& choices);

}  // namespace tessel

#endif  // TESSEL_CORE_ENVIRONMENT_H_
