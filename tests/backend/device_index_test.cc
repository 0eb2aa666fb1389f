// Ops on the tensors of cuda:1 while cuda:0 is current, on the driver that runs no kernels
// (tools/fake_cuda) showing one GPU as two (TESSEL_VIRTUAL_DEVICES=2): what an op makes
// inside (a scalar operand, positions, fills) joins its operands on cuda:1. Before, such
// values went to the current device and the op refused its own operands ("operands are on
// different devices"; found by a crash-hunting helper). Values are meaningless here; only the
// recording, the device of each result and that each realizes are checked.
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "core/backend.h"
#include "gtest/gtest.h"
#include "tessel.h"

namespace tessel {
namespace {

TEST(DeviceIndexTest, WhatAnOpMakesInsideJoinsItsOperandsDevice) {
  if (!GetBackend(Device::kCUDA).ok() || device_count() < 2) {
    GTEST_SKIP() << "the fake driver did not load as two devices";
  }
  set_device(1);
  const Tensor x = randn({4, 8}, 1, DType::kF32, Device::kCUDA);
  const Tensor ids = to(from_vector(std::vector<int64_t>{1, 2, 0}, {3}), Device::kCUDA);
  const Tensor w = randn({8}, 2, DType::kF32, Device::kCUDA),
               b = zeros({8}, DType::kF32, Device::kCUDA);
  set_device(0);
  ASSERT_EQ(device_index(x), 1);
  ASSERT_EQ(device_index(ids), 1);
  const std::vector<std::pair<std::string, std::function<Tensor()>>> ops = {
      {"x * 2", [&] { return x * 2.0; }},
      {"2 - x", [&] { return 2.0 - x; }},
      {"gelu", [&] { return gelu(x); }},
      {"layer_norm", [&] { return layer_norm(x, w, b); }},
      {"rms_norm", [&] { return rms_norm(x, w); }},
      {"var", [&] { return var(x, {1}); }},
      {"clamp", [&] { return clamp(x, -1.0, 1.0); }},
      {"tril", [&] { return tril(x); }},
      {"pad",
       [&] {
         return pad(x, {1, 0}, {0, 2}, 3.0);
       }},
      {"one_hot", [&] { return one_hot(ids, 4); }},
      {"argmax", [&] { return argmax(x, 1); }},
      {"where", [&] { return where(gt(x, 0.0), x, 0.0); }},
      {"masked_fill", [&] { return masked_fill(x, gt(x, 0.0), -1.0); }},
  };
  for (const auto& [name, op] : ops) {
    SCOPED_TRACE(name);
    Tensor y;
    ASSERT_NO_THROW(y = op());
    EXPECT_EQ(y.device(), Device::kCUDA);
    EXPECT_EQ(device_index(y), 1);
    EXPECT_NO_THROW(realize({y}));
  }
  EXPECT_EQ(current_device(), 0);  // the op's scope ended
}

}  // namespace
}  // namespace tessel
