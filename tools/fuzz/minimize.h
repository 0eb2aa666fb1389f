// The minimizer: a failing program in, the smallest program found that fails the same way
// (same Outcome signature) out. Program text -> smaller program text.
//
// It tries, until none applies: dropping outputs and mid-program realizes, replacing a value
// by a fresh input of its type (which drops everything that only fed it), letting the
// consumers of a value read one of its operands instead, halving an extent (or setting it
// to 1) everywhere it is given, and dropping size-1 axes of inputs. Each candidate runs in
// a fresh process of this binary, so that crashes and device faults shrink too.
#ifndef TESSEL_TOOLS_FUZZ_MINIMIZE_H_
#define TESSEL_TOOLS_FUZZ_MINIMIZE_H_

#include <functional>
#include <string>

#include "tools/fuzz/check.h"

namespace tessel::fuzz {

struct MinimizeOptions {
  CheckOptions check;
  std::string self;  // this binary
  bool verbose = true;
};

// How `text` fares in a child process: "" when it passes, "invalid" when the API refuses it,
// else its failure signature ("crash: signal 11" when the child dies).
std::string SignatureInChild(const std::string& text, const MinimizeOptions& options);

// How a program fares: "" when it passes, else what it fails with.
using SignatureOf = std::function<std::string(const std::string& text)>;

// Returns the smallest program found that `signature_of` says fails as `text` does;
// `signature` receives that failure ("" or "invalid" when `text` does not fail, and then
// `text` comes back unchanged).
std::string Minimize(const std::string& text, const SignatureOf& signature_of,
                     std::string* signature, bool verbose = false);

// The same, each candidate checked in a child process.
std::string Minimize(const std::string& text, const MinimizeOptions& options,
                     std::string* signature);

}  // namespace tessel::fuzz

#endif  // TESSEL_TOOLS_FUZZ_MINIMIZE_H_
