// tessel: a C++ array framework for NVIDIA GPUs with just-in-time kernel fusion.
// The umbrella header of the public API (docs: README.md; contract: api.md).
#ifndef TESSEL_TESSEL_H_
#define TESSEL_TESSEL_H_

#include "backend/inspect.h"
#include "core/backend.h"
#include "core/dtype.h"
#include "core/error.h"
#include "core/execution.h"
#include "core/graph_text.h"
#include "core/memory.h"
#include "core/realize.h"
#include "core/shape.h"
#include "core/tensor.h"
#include "ops/assign.h"
#include "ops/composite.h"
#include "ops/creation.h"
#include "ops/indexing.h"
#include "ops/interop.h"
#include "ops/matmul.h"
#include "ops/npy_file.h"
#include "ops/pointwise.h"
#include "ops/reduce.h"
#include "ops/scan.h"
#include "ops/sort.h"
#include "ops/structure.h"
#include "ops/structure_composite.h"
#include "ops/tensor_format.h"

#endif  // TESSEL_TESSEL_H_
