#include "tools/fake_cuda/cubin_shared.h"

#include <elf.h>

#include <cstring>
#include <iterator>
#include <string_view>

namespace fake_cuda {
namespace {

constexpr std::string_view kSharedPrefix = ".nv.shared.";
// sm_90 cubins lay out 1 KB the driver reserves a block at the start of every kernel's
// `.nv.shared.<kernel>` section and declare it as this section; the driver's attribute (and
// the limits it checks) count only the kernel's own bytes. An H100 probe of 16 B to 40 KB
// static arrays (bench/labs/static_shared_probe.cu, bench/RESULTS.md, thirty-ninth session):
// attribute = section size - 1024; sm_80 cubins have neither the section nor the extra KB.
constexpr std::string_view kReservedSection = ".nv.shared.reserved.0";
constexpr int kReservedBytes = 1024;

}  // namespace

std::map<std::string, int> StaticSharedBytes(const void* image) {
  const auto* bytes = static_cast<const unsigned char*>(image);
  // Byte by byte, so that a shorter PTX string is not read past its end.
  for (int i = 0; i < SELFMAG; ++i) {
    if (bytes[i] != static_cast<unsigned char>(ELFMAG[i])) return {};
  }
  Elf64_Ehdr header;
  std::memcpy(&header, bytes, sizeof header);
  if (header.e_ident[EI_CLASS] != ELFCLASS64 || header.e_shentsize != sizeof(Elf64_Shdr)) return {};
  auto section = [&](int i) {
    Elf64_Shdr s;
    std::memcpy(&s, bytes + header.e_shoff + static_cast<size_t>(i) * sizeof s, sizeof s);
    return s;
  };
  const char* names = reinterpret_cast<const char*>(bytes + section(header.e_shstrndx).sh_offset);
  std::map<std::string, int> shared;
  bool reserved_inside = false;
  for (int i = 0; i < header.e_shnum; ++i) {
    const Elf64_Shdr s = section(i);
    const std::string_view name = names + s.sh_name;
    if (name == kReservedSection) reserved_inside = true;
    if (name.substr(0, kSharedPrefix.size()) != kSharedPrefix || name == kReservedSection) continue;
    shared[std::string(name.substr(kSharedPrefix.size()))] = static_cast<int>(s.sh_size);
  }
  for (auto it = shared.begin(); it != shared.end();) {
    if (reserved_inside) it->second -= kReservedBytes;
    it = it->second > 0 ? std::next(it) : shared.erase(it);
  }
  return shared;
}

}  // namespace fake_cuda
