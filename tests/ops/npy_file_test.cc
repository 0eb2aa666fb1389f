// save/load in NumPy's .npy format: bytes against hand-written headers, round trips of every
// dtype, files NumPy itself writes (Fortran order, big-endian), errors, and numpy.load.
#include "ops/npy_file.h"

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tessel.h"

namespace tessel {
namespace {

std::string Path(const std::string& name) { return testing::TempDir() + "/" + name; }

std::string ReadBytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

void WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

// A version 1.0 header around `dict`, padded as NumPy pads it (data 64-byte aligned).
std::string Header(const std::string& dict) {
  std::string padded = dict + std::string(64 - (10 + dict.size() + 1) % 64, ' ') + "\n";
  const auto n = static_cast<uint16_t>(padded.size());
  return std::string("\x93NUMPY\x01\x00", 8) + static_cast<char>(n & 0xff) +
         static_cast<char>(n >> 8) + padded;
}

TEST(NpyFileTest, WritesNumPysHeaderAndLittleEndianData) {
  save(Path("a.npy"), from_vector({1, 2, 3, 4, 5, 6}, {2, 3}, DType::kF32, Device::kCPU));
  const std::string bytes = ReadBytes(Path("a.npy"));
  const std::string header = std::string("\x93NUMPY\x01\x00\x76\x00", 10) +
                             "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }" +
                             std::string(58, ' ') + "\n";
  ASSERT_EQ(bytes.size(), 128u + 24u);
  EXPECT_EQ(bytes.substr(0, 128), header);
  EXPECT_EQ(bytes.substr(128, 4), std::string("\x00\x00\x80\x3f", 4));  // 1.0f
  save(Path("b.npy"),
       from_vector(std::vector<bool>{true, false, true}, {3}, DType::kBool, Device::kCPU));
  EXPECT_EQ(ReadBytes(Path("b.npy")),
            Header("{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }") +
                std::string("\x01\x00\x01", 3));
  save(Path("c.npy"), full({}, 7, DType::kI32, Device::kCPU));
  EXPECT_EQ(ReadBytes(Path("c.npy")),
            Header("{'descr': '<i4', 'fortran_order': False, 'shape': (), }") +
                std::string("\x07\x00\x00\x00", 4));
}

TEST(NpyFileTest, RoundTripsEveryDtype) {
  const std::vector<float> v = {0.5f, -1.25f, 3, 65504, -0.0f, 1e-3f};
  for (DType d : {DType::kF32, DType::kF16, DType::kI32, DType::kBool, DType::kI64, DType::kF64}) {
    SCOPED_TRACE(DTypeName(d));
    Tensor t = cast(from_vector(v, {3, 2}, DType::kF32, Device::kCPU), d);
    save(Path("r.npy"), t);
    Tensor back = load(Path("r.npy"), Device::kCPU);
    EXPECT_EQ(back.dtype(), d);
    EXPECT_EQ(back.shape(), t.shape());
    EXPECT_EQ(back.to_vector<float>(), t.to_vector<float>());
  }
  // bf16 widens to f32, exactly.
  Tensor h = from_vector(v, {6}, DType::kBF16, Device::kCPU);
  save(Path("h.npy"), h);
  Tensor back = load(Path("h.npy"), Device::kCPU);
  EXPECT_EQ(back.dtype(), DType::kF32);
  EXPECT_EQ(back.to_vector<float>(), h.to_vector<float>());
  // An unrealized result is realized first; empty tensors keep their shape.
  save(Path("u.npy"), from_vector({1, 2}, {2}, DType::kF32, Device::kCPU) * 3.0);
  EXPECT_EQ(load(Path("u.npy"), Device::kCPU).to_vector<float>(), (std::vector<float>{3, 6}));
  save(Path("e.npy"), zeros({0, 4}, DType::kF32, Device::kCPU));
  EXPECT_EQ(load(Path("e.npy"), Device::kCPU).shape(), Shape({0, 4}));
}

TEST(NpyFileTest, ReadsFortranOrderAndBigEndian) {
  // np.asfortranarray([[1, 2, 3], [4, 5, 6]], dtype='<i4'): the data is column by column.
  std::string data;
  for (int32_t x : {1, 4, 2, 5, 3, 6}) data.append(reinterpret_cast<const char*>(&x), 4);
  WriteBytes(Path("f.npy"),
             Header("{'descr': '<i4', 'fortran_order': True, 'shape': (2, 3), }") + data);
  Tensor f = load(Path("f.npy"), Device::kCPU);
  EXPECT_EQ(f.shape(), Shape({2, 3}));
  EXPECT_EQ(f.to_vector<int32_t>(), (std::vector<int32_t>{1, 2, 3, 4, 5, 6}));
  // np.array([1.0, -2.0], dtype='>f4')
  WriteBytes(Path("be.npy"), Header("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }") +
                                 std::string("\x3f\x80\x00\x00\xc0\x00\x00\x00", 8));
  EXPECT_EQ(load(Path("be.npy"), Device::kCPU).to_vector<float>(), (std::vector<float>{1, -2}));
}

void ExpectLoadError(const std::string& name, const std::string& bytes, const std::string& what) {
  WriteBytes(Path(name), bytes);
  try {
    load(Path(name), Device::kCPU);
    ADD_FAILURE() << name << ": no error";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("tessel::load"), std::string::npos) << message;
    EXPECT_NE(message.find(Path(name)), std::string::npos) << message;
    EXPECT_NE(message.find(what), std::string::npos) << message;
  }
}

TEST(NpyFileTest, BadFilesAreErrorsNamingThePathAndTheProblem) {
  const std::string ok = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
  ExpectLoadError("magic.npy", "PK\x03\x04 not numpy", "not a .npy file");
  ExpectLoadError("short.npy", std::string("\x93NUMPY\x01\x00\xff\x00{'descr'", 17), "truncated");
  ExpectLoadError("data.npy", Header(ok) + std::string(7, '\0'), "truncated");
  ExpectLoadError(
      "c8.npy",
      Header("{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }") + std::string(16, '\0'),
      "'<c8' is not one tessel has yet");
  ExpectLoadError("noshape.npy", Header("{'descr': '<f4', 'fortran_order': False, }"),
                  "no 'shape'");
  ExpectLoadError("extent.npy",
                  Header("{'descr': '<f4', 'fortran_order': False, 'shape': (2, x), }"),
                  "bad extent 'x'");
  ExpectLoadError("version.npy", std::string("\x93NUMPY\x09\x00\x00\x00", 10), "version 9");
  // What NumPy refuses too: no byte order, and shapes that are no Python tuple.
  ExpectLoadError(
      "order.npy",
      Header("{'descr': 'xf4', 'fortran_order': False, 'shape': (2,), }") + std::string(8, '\0'),
      "'xf4' has no byte order");
  ExpectLoadError("comma.npy", Header("{'descr': '<f4', 'fortran_order': False, 'shape': (,), }"),
                  "bad extent ''");
  ExpectLoadError(
      "notuple.npy",
      Header("{'descr': '<f4', 'fortran_order': False, 'shape': (2), }") + std::string(8, '\0'),
      "'shape' (2) is not a tuple");
  EXPECT_THROW(load(Path("missing/none.npy"), Device::kCPU), Error);
  EXPECT_THROW(save(Path("missing/none.npy"), zeros({2}, DType::kF32, Device::kCPU)), Error);
}

// Where NumPy is installed (tools/run test installs it): numpy.load reads tessel's files and
// tessel reads NumPy's.
TEST(NpyFileTest, RoundTripThroughNumPy) {
  if (std::system("python3 -c 'import numpy' 2>/dev/null") != 0) {
    GTEST_SKIP() << "NumPy is not installed";
  }
  save(Path("t.npy"), from_vector({0.5f, 1.5f, -2, 4}, {2, 2}, DType::kF16, Device::kCPU));
  const std::string script = "import numpy as n; a = n.load('" + Path("t.npy") +
                             "'); assert a.dtype == n.float16 and a.shape == (2, 2); "
                             "assert a.tolist() == [[0.5, 1.5], [-2.0, 4.0]]; "
                             "n.save('" +
                             Path("n.npy") + "', n.asfortranarray(a.T * 2))";
  ASSERT_EQ(std::system(("python3 -c \"" + script + "\"").c_str()), 0);
  Tensor back = load(Path("n.npy"), Device::kCPU);
  EXPECT_EQ(back.dtype(), DType::kF16);
  EXPECT_EQ(back.to_vector<float>(), (std::vector<float>{1, -4, 3, 8}));
}

}  // namespace
}  // namespace tessel
