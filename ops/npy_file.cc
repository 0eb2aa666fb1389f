#include "ops/npy_file.h"

#include <Eigen/Core>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <numeric>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "core/error.h"
#include "ops/creation.h"
#include "ops/structure.h"

namespace tessel {
namespace {

constexpr absl::string_view kMagic = "\x93NUMPY";
constexpr size_t kAlign = 64;  // NumPy pads the header so that the data starts aligned

struct Format {
  DType dtype;
  size_t item_bytes;
};

// The .npy type string tessel writes for `dtype`.
absl::string_view Descr(DType dtype) {
  switch (dtype) {
    case DType::kF16:
      return "<f2";
    case DType::kI32:
      return "<i4";
    case DType::kI64:
      return "<i8";
    case DType::kF64:
      return "<f8";
    case DType::kBool:
      return "|b1";
    default:
      return "<f4";  // f32, and bf16 widened (exactly)
  }
}

std::string ShapeTuple(const Shape& shape) {
  if (shape.rank() == 1) return absl::StrCat("(", shape[0], ",)");
  return absl::StrCat("(", absl::StrJoin(shape.dims(), ", "), ")");
}

// The element bytes of `t`, little-endian, in the dtype Descr names: its buffer's own bytes,
// except bf16, widened to f32 (exactly).
std::string ElementBytes(const Tensor& t) {
  if (t.dtype() == DType::kBF16) {
    const std::vector<float> v = t.to_vector<float>();
    return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float));
  }
  std::vector<uint8_t> storage;
  const void* data = HostData(t, &storage);
  return std::string(static_cast<const char*>(data), t.numel() * DTypeSize(t.dtype()));
}

[[noreturn]] void Malformed(const std::string& path, absl::string_view what) {
  ThrowOpError("load", path, ": ", what);
}

// The value text after `'key':` in a header dict.
absl::string_view ValueOf(const std::string& path, absl::string_view dict, absl::string_view key) {
  const std::string quoted = absl::StrCat("'", key, "':");
  const size_t at = dict.find(quoted);
  if (at == absl::string_view::npos) Malformed(path, absl::StrCat("the header has no '", key, "'"));
  return absl::StripLeadingAsciiWhitespace(dict.substr(at + quoted.size()));
}

Format ParseDescr(const std::string& path, absl::string_view value, bool* swap) {
  if (value.empty() || value[0] != '\'') Malformed(path, "'descr' is not a string");
  const size_t end = value.find('\'', 1);
  if (end == absl::string_view::npos) Malformed(path, "'descr' is not a string");
  const absl::string_view descr = value.substr(1, end - 1);
  if (descr.size() < 3) Malformed(path, absl::StrCat("unknown dtype '", descr, "'"));
  const char order = descr[0];
  const absl::string_view kind = descr.substr(1);
  if (!absl::StrContains("<>|=", order)) {
    Malformed(path, absl::StrCat("dtype '", descr, "' has no byte order ('<', '>', '|' or '=')"));
  }
  *swap = order == '>';
  if (kind == "f4") return {DType::kF32, 4};
  if (kind == "f2") return {DType::kF16, 2};
  if (kind == "i4") return {DType::kI32, 4};
  if (kind == "b1") return {DType::kBool, 1};
  if (kind == "i8") return {DType::kI64, 8};
  if (kind == "f8") return {DType::kF64, 8};
  ThrowOpError("load", path, ": dtype '", descr,
               "' is not one tessel has yet (it reads f2, f4, f8, i4, i8 and b1, either byte "
               "order)");
}

Shape ParseShape(const std::string& path, absl::string_view value) {
  const size_t close = value.find(')');
  if (value.empty() || value[0] != '(' || close == absl::string_view::npos) {
    Malformed(path, "'shape' is not a tuple");
  }
  std::vector<int64_t> dims;
  const absl::string_view inner = absl::StripAsciiWhitespace(value.substr(1, close - 1));
  if (inner.empty()) return Shape(dims);  // "()": a scalar
  std::vector<absl::string_view> pieces = absl::StrSplit(inner, ',');
  // A Python tuple: "(3,)" holds one extent, "(3)" is no tuple, a trailing comma is allowed.
  if (absl::StripAsciiWhitespace(pieces.back()).empty()) {
    pieces.pop_back();
  } else if (pieces.size() == 1) {
    Malformed(path, absl::StrCat("'shape' (", inner, ") is not a tuple"));
  }
  for (absl::string_view piece : pieces) {
    piece = absl::StripAsciiWhitespace(piece);
    int64_t d;
    if (!absl::SimpleAtoi(piece, &d) || d < 0) {
      Malformed(path, absl::StrCat("'shape' has a bad extent '", piece, "'"));
    }
    dims.push_back(d);
  }
  return Shape(dims);
}

// Reads `count` items of `Item` from `data`, swapping byte order if asked.
template <typename Item>
std::vector<Item> Items(const char* data, int64_t count, bool swap) {
  std::vector<Item> items(count);
  std::memcpy(items.data(), data, count * sizeof(Item));
  if (swap && sizeof(Item) > 1) {
    for (Item& item : items) {
      auto* b = reinterpret_cast<char*>(&item);
      std::reverse(b, b + sizeof(Item));
    }
  }
  return items;
}

Tensor FromItems(const Format& f, const char* data, const Shape& shape, bool swap, Device device) {
  const int64_t n = shape.numel();
  switch (f.dtype) {
    case DType::kF16: {
      std::vector<float> values;
      for (uint16_t bits : Items<uint16_t>(data, n, swap)) {
        values.push_back(static_cast<float>(Eigen::numext::bit_cast<Eigen::half>(bits)));
      }
      return from_vector(values, shape, DType::kF16, device);
    }
    case DType::kI32:
      return from_vector(Items<int32_t>(data, n, swap), shape, DType::kI32, device);
    case DType::kI64:
      return from_vector(Items<int64_t>(data, n, swap), shape, DType::kI64, device);
    case DType::kF64:
      return from_vector(Items<double>(data, n, swap), shape, DType::kF64, device);
    case DType::kBool: {
      const std::vector<uint8_t> bytes = Items<uint8_t>(data, n, false);
      return from_vector(std::vector<bool>(bytes.begin(), bytes.end()), shape, DType::kBool,
                         device);
    }
    default:
      return from_vector(Items<float>(data, n, swap), shape, DType::kF32, device);
  }
}

}  // namespace

void save(const std::string& path, const Tensor& t) {
  CheckedNode(t, "save");
  std::string dict =
      absl::StrCat("{'descr': '", Descr(t.dtype()),
                   "', 'fortran_order': False, 'shape': ", ShapeTuple(t.shape()), ", }");
  const size_t unpadded = kMagic.size() + 4 + dict.size() + 1;
  dict.append((kAlign - unpadded % kAlign) % kAlign, ' ');
  dict.push_back('\n');
  const std::string data = ElementBytes(t);  // realizes before the file is touched
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  const uint16_t header_bytes = static_cast<uint16_t>(dict.size());
  file << kMagic << '\x01' << '\x00';
  file.put(static_cast<char>(header_bytes & 0xff)).put(static_cast<char>(header_bytes >> 8));
  file << dict << data;
  file.close();
  if (!file) ThrowOpError("save", "cannot write ", path, ": ", std::strerror(errno));
}

Tensor load(const std::string& path, Device device) {
  std::ifstream file(path, std::ios::binary);
  if (!file) ThrowOpError("load", "cannot open ", path, ": ", std::strerror(errno));
  std::string bytes;
  try {  // a directory opens, and fails only as it is read, by an exception
    bytes.assign(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
  } catch (const std::exception&) {
    ThrowOpError("load", "cannot read ", path, ": ", std::strerror(errno));
  }
  if (!absl::StartsWith(bytes, kMagic)) Malformed(path, "not a .npy file (no \\x93NUMPY magic)");
  if (bytes.size() < kMagic.size() + 4) Malformed(path, "truncated in the header");
  const int major = static_cast<uint8_t>(bytes[6]);
  if (major < 1 || major > 3) Malformed(path, absl::StrCat("unknown format version ", major));
  const size_t length_bytes = major == 1 ? 2 : 4;
  size_t header_bytes = 0;
  for (size_t i = 0; i < length_bytes && 8 + i < bytes.size(); ++i) {
    header_bytes |= static_cast<size_t>(static_cast<uint8_t>(bytes[8 + i])) << (8 * i);
  }
  const size_t data_start = 8 + length_bytes + header_bytes;
  if (bytes.size() < data_start) Malformed(path, "truncated in the header");
  const std::string dict =
      absl::StrReplaceAll(bytes.substr(8 + length_bytes, header_bytes), {{"\"", "'"}});
  bool swap = false;
  const Format format = ParseDescr(path, ValueOf(path, dict, "descr"), &swap);
  const absl::string_view order = ValueOf(path, dict, "fortran_order");
  if (!absl::StartsWith(order, "True") && !absl::StartsWith(order, "False")) {
    Malformed(path, "'fortran_order' is neither True nor False");
  }
  const bool fortran = absl::StartsWith(order, "True");
  Shape shape = ParseShape(path, ValueOf(path, dict, "shape"));
  if (!WithinLimits(shape)) {
    Malformed(path, absl::StrCat("shape ", ShapeTuple(shape), " has more than 2^60 elements"));
  }
  const size_t expected = static_cast<size_t>(shape.numel()) * format.item_bytes;
  if (bytes.size() - data_start < expected) {
    Malformed(path, absl::StrCat("truncated: ", ShapeTuple(shape), " needs ", expected,
                                 " bytes of data, the file holds ", bytes.size() - data_start));
  }
  if (!fortran) return FromItems(format, bytes.data() + data_start, shape, swap, device);
  // Fortran order is the reversed shape in C order, its axes reversed back (a view).
  Shape reversed(std::vector<int64_t>(shape.dims().rbegin(), shape.dims().rend()));
  std::vector<int> axes(shape.rank());
  std::iota(axes.rbegin(), axes.rend(), 0);
  return permute(FromItems(format, bytes.data() + data_start, reversed, swap, device), axes);
}

}  // namespace tessel
