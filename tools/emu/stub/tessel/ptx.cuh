// Stand-in for tessel/ptx.cuh on the CPU: the emulated primitives live in emu.h.
#pragma once
#include "emu.h"
