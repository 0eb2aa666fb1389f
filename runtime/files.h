// Small file helpers for the on-disk kernel cache and TESSEL_DUMP.
#ifndef TESSEL_RUNTIME_FILES_H_
#define TESSEL_RUNTIME_FILES_H_

#include <string>

namespace tessel::runtime {

// mkdir -p: creates `path` and its parents as needed (existing ones are fine).
void MakeDirectories(const std::string& path);

// The whole file as bytes; false when it cannot be read.
bool ReadFile(const std::string& path, std::string* data);

}  // namespace tessel::runtime

#endif  // TESSEL_RUNTIME_FILES_H_
