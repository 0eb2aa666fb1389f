// Small file helpers for the on-disk kernel cache and TESSEL_DUMP.
#ifndef TESSEL_RUNTIME_FILES_H_
#define TESSEL_RUNTIME_FILES_H_

#include <cstdint>
#include <string>

namespace tessel::runtime {

// mkdir -p: creates `path` and its parents as needed (existing ones are fine).
void MakeDirectories(const std::string& path);

// The whole file as bytes where it is a regular file of at most `max_bytes` (a pipe or a
// device placed there would block or never end); false otherwise, or when it cannot be read.
bool ReadRegularFile(const std::string& path, int64_t max_bytes, std::string* data);

}  // namespace tessel::runtime

#endif  // TESSEL_RUNTIME_FILES_H_
