// assign(): values, the target's own buffer reused when nothing else holds it, old values kept
// for whoever still holds them, broadcasting and casting, and its errors.
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "tessel.h"
#include "tests/test_util.h"

namespace tessel {
namespace {

constexpr Device kCpu = Device::kCPU;

Tensor Values(std::vector<float> v) {
  const int64_t n = static_cast<int64_t>(v.size());
  return from_vector(v, {n}, DType::kF32, kCpu);
}

TEST(AssignTest, AnUpdateReusesTheTargetsBuffer) {
  Tensor p = Values({1, 2, 3});
  const Tensor g = Values({10, 20, 30});
  const void* before = data_ptr(p);
  for (int step = 0; step < 3; ++step) {
    assign(p, p - g * 0.5);  // reads the old value and replaces it
    realize({p});
    EXPECT_EQ(data_ptr(p), before) << step;
  }
  EXPECT_EQ(p.to_vector<float>(), (std::vector<float>{-14, -28, -42}));
}

TEST(AssignTest, WhoeverHoldsTheOldValueKeepsIt) {
  Tensor p = Values({1, 2, 3});
  realize({p});
  const Tensor old = p;
  const Tensor view = reshape(p, {3, 1});
  realize({view});  // on the CPU a reshape shares its input's buffer
  assign(p, p * 2.0);
  EXPECT_EQ(p.to_vector<float>(), (std::vector<float>{2, 4, 6}));
  EXPECT_EQ(old.to_vector<float>(), (std::vector<float>{1, 2, 3}));
  EXPECT_EQ(view.to_vector<float>(), (std::vector<float>{1, 2, 3}));
  EXPECT_NE(data_ptr(p), data_ptr(old));
}

// The old value moves to a buffer of its own where a tensor or an expression not yet
// realized still reads it; the target keeps its memory (once, wrapped memory kept its old
// values while the target took a new buffer).
TEST(AssignTest, ReadersOfTheOldValueDoNotMoveTheTarget) {
  std::vector<float> memory = {1, 2, 3};
  Tensor p = from_blob(memory.data(), {3}, DType::kF32, kCpu);
  const Tensor pending = p * 1.0;
  const Tensor held = p;
  assign(p, p * 10.0);
  realize({p});
  EXPECT_EQ(memory, (std::vector<float>{10, 20, 30}));
  EXPECT_EQ(data_ptr(p), memory.data());
  EXPECT_EQ(pending.to_vector<float>(), (std::vector<float>{1, 2, 3}));
  EXPECT_EQ(held.to_vector<float>(), (std::vector<float>{1, 2, 3}));
  const Tensor reader = p * 1.0;  // realized in the same program as the update, after it
  assign(p, p + 1.0);
  realize({p, reader});
  EXPECT_EQ(memory, (std::vector<float>{11, 21, 31}));
  EXPECT_EQ(reader.to_vector<float>(), (std::vector<float>{10, 20, 30}));
}

// A realize that fails undoes its assigns: a loop can catch the error, skip the step and go
// on, still in place.
TEST(AssignTest, AFailedRealizeUndoesItsAssigns) {
  Tensor p = Values({1, 2, 3}), q = Values({4, 5, 6});
  realize({p, q});
  const void* before = data_ptr(p);
  const Tensor held = q;
  const Tensor bad = from_vector(std::vector<int64_t>{0, 7, 1}, {3}, DType::kI64, kCpu);
  assign(p, p + gather(q, 0, bad));  // index 7 of 3: an error at realize
  assign(q, q * 2.0);
  testing::ExpectError([&] { realize({p, q}); }, {"gather", "index 7"});
  EXPECT_EQ(p.to_vector<float>(), (std::vector<float>{1, 2, 3}));
  EXPECT_EQ(q.to_vector<float>(), (std::vector<float>{4, 5, 6}));
  EXPECT_EQ(held.to_vector<float>(), (std::vector<float>{4, 5, 6}));
  assign(p, p * 10.0);
  realize({p});
  EXPECT_EQ(p.to_vector<float>(), (std::vector<float>{10, 20, 30}));
  EXPECT_EQ(data_ptr(p), before);
}

// Assigned twice in a step (weight decay, then the update): the last value goes into the
// target's buffer, and a failure goes back to the value before the first assign.
TEST(AssignTest, ATensorAssignedTwiceInAStep) {
  Tensor p = Values({1, 2, 3});
  const void* before = data_ptr(p);
  assign(p, p * 2.0);
  const Tensor between = p;
  assign(p, p + 1.0);
  realize({p});
  EXPECT_EQ(p.to_vector<float>(), (std::vector<float>{3, 5, 7}));
  EXPECT_EQ(data_ptr(p), before);
  EXPECT_EQ(between.to_vector<float>(), (std::vector<float>{2, 4, 6}));
  const Tensor bad = from_vector(std::vector<int64_t>{5}, {1}, DType::kI64, kCpu);
  assign(p, p * 2.0);
  assign(p, p + gather(p, 0, bad));
  testing::ExpectError([&] { realize({p}); }, {"gather", "index 5"});
  EXPECT_EQ(p.to_vector<float>(), (std::vector<float>{3, 5, 7}));
  EXPECT_EQ(data_ptr(p), before);
}

// What was recorded from an undone value meant the value that never came: realizing it is an
// error, and the same expression recorded again reads the previous value.
TEST(AssignTest, ExpressionsOfAnUndoneValueAreRefused) {
  Tensor p = Values({1, 2, 3});
  realize({p});
  const Tensor bad =
      gather(Values({0}), 0, from_vector(std::vector<int64_t>{2}, {1}, DType::kI64, kCpu));
  assign(p, p + 1.0);
  const Tensor pending = p * 4.0;
  testing::ExpectError([&] { realize({p, bad}); }, {"gather", "index 2"});
  EXPECT_EQ(p.to_vector<float>(), (std::vector<float>{1, 2, 3}));
  testing::ExpectError([&] { realize({pending}); }, {"realize", "undid", "[3]"});
  // inspect and explain show no plan that realize would refuse.
  testing::ExpectError([&] { inspect({pending}); }, {"tessel::inspect:", "undid"});
  testing::ExpectError([&] { explain({pending}); }, {"tessel::explain:", "undid"});
  EXPECT_EQ((p * 4.0).to_vector<float>(), (std::vector<float>{4, 8, 12}));
  // A value that a realize which ran computed is not undone by a later failure.
  assign(p, p + 1.0);
  const Tensor early = p * 3.0;
  realize({early});  // computes the assigned value, and so commits it
  testing::ExpectError([&] { realize({p, bad}); }, {"gather", "index 2"});
  EXPECT_EQ(p.to_vector<float>(), (std::vector<float>{2, 3, 4}));
  EXPECT_EQ(early.to_vector<float>(), (std::vector<float>{6, 9, 12}));
}

// A loop that assigns its parameters and realizes only its loss: each realize that computes
// an assigned value commits it, so the parameters stay realized buffers (no expression of
// every step so far, recomputed by each realize) and take the values of a loop that
// realizes them too.
TEST(AssignTest, ARealizeCommitsTheAssignsItComputes) {
  auto run = [](bool realize_parameters) {
    Tensor w = Values({0.5, -1, 2}), v = Values({0, 0, 0});
    realize({w, v});
    const void* w_buffer = data_ptr(w);
    std::vector<float> losses;
    for (int step = 0; step < 50; ++step) {
      const Tensor x = Values({static_cast<float>(1 + step), 2, -1});
      // Realizes the loss, and with it the update of w and v that the last step assigned.
      losses.push_back(sum(w * x * w * x).to_vector<float>()[0]);
      EXPECT_TRUE(w.realized() && v.realized()) << step;
      assign(v, v * 0.9 + 2.0 * w * x * x);
      assign(w, w - v * 0.001);
      if (realize_parameters) realize({w, v});
    }
    realize({w, v});
    EXPECT_EQ(data_ptr(w), w_buffer);
    losses.push_back(w.to_vector<float>()[0]);
    return losses;
  };
  EXPECT_EQ(run(false), run(true));
}

// Assigns whose values a failed realize would have computed go back too: to a value never
// realized (the previous expression), and where a target is not among the outputs (momentum
// read by the parameter's update); the next step runs.
TEST(AssignTest, EveryAssignOfAFailedStepGoesBack) {
  const Tensor bad = from_vector(std::vector<int64_t>{9}, {1}, DType::kI64, kCpu);
  Tensor p = Values({1, 2, 3}) * 2.0;  // never realized
  Tensor m = Values({0, 0, 0});
  realize({m});
  for (int step = 0; step < 3; ++step) {
    const Tensor g =
        step == 0 ? gather(Values({5}), 0, bad) * Values({1, 1, 1}) : Values({1, 1, 1});
    assign(m, m * 0.5 + g);
    assign(p, p - m);
    if (step == 0) {
      testing::ExpectError([&] { realize({p}); }, {"gather", "index 9"});
      EXPECT_EQ(p.to_vector<float>(), (std::vector<float>{2, 4, 6}));
      EXPECT_EQ(m.to_vector<float>(), (std::vector<float>{0, 0, 0}));
    } else {
      realize({p});
    }
  }
  EXPECT_EQ(m.to_vector<float>(), (std::vector<float>{1.5, 1.5, 1.5}));
  EXPECT_EQ(p.to_vector<float>(), (std::vector<float>{-0.5, 1.5, 3.5}));
}

// An undo goes back to what its assign replaced, no further: a first assign's value computed
// by an earlier realize (through another tensor, or inside a step that ran) stays.
TEST(AssignTest, AnUndoStopsAtValuesComputedBefore) {
  const Tensor bad = from_vector(std::vector<int64_t>{9}, {1}, DType::kI64, kCpu);
  Tensor p = Values({1, 2, 3});
  realize({p});
  assign(p, p * 2.0);
  const Tensor between = p;
  assign(p, p + gather(p, 0, bad));
  realize({between});
  testing::ExpectError([&] { realize({p}); }, {"index 9"});
  EXPECT_EQ(p.to_vector<float>(), (std::vector<float>{2, 4, 6}));
  // Momentum never realized on its own: the steps that ran stay when a later one fails.
  Tensor m = Values({0, 0, 0}), q = Values({10, 10, 10});
  realize({m, q});
  for (int step = 0; step < 3; ++step) {
    const Tensor g =
        step == 2 ? gather(Values({1}), 0, bad) * Values({1, 1, 1}) : Values({1, 1, 1});
    assign(m, m * 0.5 + g);
    assign(q, q - m);
    if (step < 2) realize({q});
  }
  testing::ExpectError([&] { realize({q}); }, {"index 9"});
  EXPECT_EQ(m.to_vector<float>(), (std::vector<float>{1.5, 1.5, 1.5}));
  EXPECT_EQ(q.to_vector<float>(), (std::vector<float>{7.5, 7.5, 7.5}));
}

// A realize refused for reading an undone value undoes its own assigns: the targets are not
// stuck on the refused expression.
TEST(AssignTest, ARefusedRealizeUndoesItsAssignsToo) {
  const Tensor bad = from_vector(std::vector<int64_t>{9}, {1}, DType::kI64, kCpu);
  Tensor p = Values({1, 2, 3}), q = Values({4, 5, 6});
  realize({p, q});
  assign(p, p + 1.0);
  const Tensor r = p * 2.0;  // recorded from the value about to be undone
  testing::ExpectError([&] { realize({p, gather(q, 0, bad)}); }, {"index 9"});
  assign(q, q + r);
  testing::ExpectError([&] { realize({q}); }, {"realize", "undid"});
  EXPECT_EQ(q.to_vector<float>(), (std::vector<float>{4, 5, 6}));
  assign(q, q * 2.0);
  realize({q});
  EXPECT_EQ(q.to_vector<float>(), (std::vector<float>{8, 10, 12}));
}

// After a failed step, a target whose old value another tensor still holds is written in
// place again (its old value moving to a copy), wrapped memory included.
TEST(AssignTest, AfterAFailedStepUpdatesStayInPlace) {
  const Tensor bad = from_vector(std::vector<int64_t>{9}, {1}, DType::kI64, kCpu);
  std::vector<float> memory = {1, 2, 3};
  Tensor t = from_blob(memory.data(), {3}, DType::kF32, kCpu);
  const Tensor held = t;
  for (int failure = 0; failure < 2; ++failure) {
    assign(t, t + gather(Values({4, 5, 6}), 0, bad));
    testing::ExpectError([&] { realize({t}); }, {"index 9"});
  }
  assign(t, t + 1.0);
  realize({t});
  EXPECT_EQ(memory, (std::vector<float>{2, 3, 4}));
  EXPECT_EQ(data_ptr(t), memory.data());
  EXPECT_EQ(held.to_vector<float>(), (std::vector<float>{1, 2, 3}));
}

// Recording from a value while another thread drops nodes recorded from it before its undo
// (once, a node passed over was freed under the node table's lock: a deadlock).
TEST(AssignTest, RecordingAfterAnUndoWhileReadersDie) {
  const Tensor bad = from_vector(std::vector<int64_t>{9}, {1}, DType::kI64, kCpu);
  const Tensor q = Values({4, 5, 6});
  for (int round = 0; round < 40; ++round) {
    Tensor p = Values({1, 2, 3});
    realize({p});
    assign(p, p + gather(q, 0, bad));
    std::vector<Tensor> readers;
    for (int i = 0; i < 1000; ++i) readers.push_back(p * static_cast<double>(i));
    EXPECT_THROW(realize({p}), Error);
    std::thread dropper([&] { readers.clear(); });
    for (int i = 0; i < 1000; ++i) (void)(p * static_cast<double>(i));
    dropper.join();
  }
}

TEST(AssignTest, BroadcastsCastsAndWritesIntoWrappedMemory) {
  std::vector<float> memory = {0, 0, 0, 0, 0, 0};
  Tensor t = from_blob(memory.data(), {2, 3}, DType::kF32, kCpu);
  assign(t, from_vector(std::vector<int32_t>{7, 8, 9}, {3}, DType::kI32, kCpu));
  realize({t});
  EXPECT_EQ(memory, (std::vector<float>{7, 8, 9, 7, 8, 9}));  // the caller's own memory
  Tensor lazy = zeros({2}, DType::kBF16, kCpu) + 1.0;         // not realized: nothing to reuse
  assign(lazy, Values({0.5f, 3}));
  EXPECT_EQ(lazy.dtype(), DType::kBF16);
  EXPECT_EQ(lazy.to_vector<float>(), (std::vector<float>{0.5f, 3}));
}

TEST(AssignTest, ManyParametersRealizedTogether) {
  std::vector<Tensor> params, grads;
  std::vector<const void*> where;
  for (int i = 0; i < 8; ++i) {
    params.push_back(Values({float(i), float(i + 1)}));
    grads.push_back(Values({1, 1}));
    where.push_back(data_ptr(params.back()));
  }
  for (int i = 0; i < 8; ++i) assign(params[i], params[i] - grads[i] * (0.5 * i));
  realize(params);
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(data_ptr(params[i]), where[i]);
    EXPECT_EQ(params[i].to_vector<float>(), (std::vector<float>{i - 0.5f * i, i + 1 - 0.5f * i}));
  }
}

TEST(AssignTest, BadCallsAreErrors) {
  Tensor p = Values({1, 2, 3});
  testing::ExpectError(
      [&] {
        assign(p, Values({1, 2}));
      },
      {"assign", "f32[2] does not broadcast to the target f32[3]"});
  testing::ExpectError(
      [&] {
        assign(p, zeros({2, 3}, DType::kF32, kCpu));
      },
      {"assign", "f32[2,3]"});
  Tensor none;
  testing::ExpectError([&] { assign(none, p); }, {"assign"});
  testing::ExpectError([&] { assign(p, zeros({3}, DType::kF32, Device::kCUDA)); },
                       {"assign", "different devices"});
}

}  // namespace
}  // namespace tessel
