// realize(): Graph -> Backend. Collects the unrealized nodes that the outputs need, in
// topological order, runs them on their device's backend, and stores each output's buffer
// in its node (which then drops its producers).
#ifndef TESSEL_CORE_REALIZE_H_
#define TESSEL_CORE_REALIZE_H_

#include <shared_mutex>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/backend.h"
#include "core/tensor.h"
#include "core/topo_order.h"

namespace tessel {

void realize(const std::vector<Tensor>& outputs);

// The program realize() would hand to the backend: every unrealized node the outputs need,
// producers first, and the distinct unrealized outputs, with every assign()ed value among the
// nodes (realize commits each that it computes).
Program CollectProgram(const std::vector<const Node*>& outputs);

// Error (named `op`) where the program reads a value that a failed realize undid ([ Note --
// undone assigns ] in core/node.h): realize refuses to run such a program, inspect and
// explain to show one.
void RefuseUndoneReads(const Program& program, absl::string_view op);

// assign(): `value` (the new value's node) is to end up in the buffer of `target` (the
// tensor's value before it): where target is realized, its buffer; where target is itself an
// assigned value not yet realized (a tensor assigned twice in a step), what it was to end up
// in, which moves to `value`. `value` keeps `target` until a realize computes it, for a
// failed realize to go back to ([ Note -- undone assigns ] in core/node.h).
void SetAssignTarget(const NodePtr& target, Node& value);

// [ Note -- threads ]
// Recording is concurrent: threads may record into graphs at the same time, and equal work
// recorded by two threads is one node. Realizing changes nodes (values in, producers out), so
// realizes take turns: realize() holds the graph lock exclusively for its whole run (one
// realize at a time in the process; work on the GPU is queued in order). Code that walks a
// graph without realizing it (PrintGraph, inspect, explain) holds it shared meanwhile.
std::shared_lock<std::shared_mutex> LockGraphForReading();

}  // namespace tessel

#endif  // TESSEL_CORE_REALIZE_H_
