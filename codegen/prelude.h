// The device helpers every generated kernel starts with (pasted in, so that each source is
// one self-contained translation unit that NVRTC compiles without include paths).
#ifndef TESSEL_CODEGEN_PRELUDE_H_
#define TESSEL_CODEGEN_PRELUDE_H_

#include "absl/strings/string_view.h"

namespace tessel::codegen {

absl::string_view Prelude();

}  // namespace tessel::codegen

#endif  // TESSEL_CODEGEN_PRELUDE_H_
