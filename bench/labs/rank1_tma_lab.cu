// Can a Hopper GEMM's producer load B from rows that are not 16-byte multiples (B [4096,
// 4095] bf16: rows of 8190 bytes, which a rank-2 tensor map refuses) without the padded copy?
// A rank-1 tensor map of the whole buffer has no stride rule, so row k of a stage's 64 x 64
// block is one 64-element box at element k * N + n0 (docs/plans/issue13_gemm_staging.md).
// 1. `layout`: a block loaded row by row through the rank-1 map, against the same block of a
//    padded copy loaded as one 2-D box, both with the 128-byte swizzle: are the bytes equal
//    (does the swizzle follow the destination's address, not the box's own row)?
// 2. `rate`: every SM streams B's 64 x 256 stages through a ring of 4 with nothing consuming
//    but an arrive: GB/s for 2-D boxes on the padded copy (4 a stage), rank-1 row boxes issued
//    by one thread (256 a stage) and by the producer warp's 32 lanes (8 each). A 128 x 256
//    tile's mainloop takes a stage in about 1000 cycles: about 63 GB/s an SM (8.4 TB/s in
//    all, from L2) is what a GEMM needs.
#include <cuda.h>

#include <cstdint>
#include <cstdlib>
#include <vector>

#include "lab_timing.cuh"

constexpr int kK = 4096, kN = 4095, kPitch = 4096;  // B's rows, columns, the copy's pitch
constexpr int kStages = 4, kBlocks = 4;             // a stage: 4 blocks of 64 x 64
constexpr int kBlockBytes = 64 * 128, kStageBytes = kBlocks * kBlockBytes;

#define CKU(x)                         \
  do {                                 \
    CUresult r_ = (x);                 \
    if (r_ != CUDA_SUCCESS) {          \
      printf("%s: %d\n", #x, (int)r_); \
      exit(1);                         \
    }                                  \
  } while (0)

__device__ __forceinline__ unsigned smem(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void bar_init(uint64_t* b, int count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem(b)), "r"(count));
}
__device__ __forceinline__ void bar_expect(uint64_t* b, int bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem(b)), "r"(bytes)
               : "memory");
}
__device__ __forceinline__ void bar_arrive(uint64_t* b) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem(b)) : "memory");
}
// Spins on the phase: false where the loads have not landed after about half a second. (The
// forty-eighth and forty-ninth sessions' runs trapped at the first layout check, "an illegal
// instruction", with the swizzled rank-1 map first; now the unswizzled one goes first.)
__device__ __forceinline__ bool bar_wait(uint64_t* b, int parity) {
  const long long start = clock64();
  for (;;) {
    unsigned done;
    asm volatile(
        "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
        " selp.u32 %0, 1, 0, p;\n}"
        : "=r"(done)
        : "r"(smem(b)), "r"(parity)
        : "memory");
    if (done) return true;
    if (clock64() - start > (1ll << 30)) return false;
  }
}
__device__ __forceinline__ void load_1d(void* dst, const CUtensorMap* map, int c0, uint64_t* b) {
  asm volatile(
      "cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2}], [%3];" ::"r"(smem(dst)),
      "l"(map), "r"(c0), "r"(smem(b))
      : "memory");
}
__device__ __forceinline__ void load_2d(void* dst, const CUtensorMap* map, int c0, int c1,
                                        uint64_t* b) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3}], [%4];" ::"r"(smem(dst)),
      "l"(map), "r"(c0), "r"(c1), "r"(smem(b))
      : "memory");
}
__device__ __forceinline__ void init_done() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  __syncthreads();
}

// One block of B (rows k0.., columns n0..) by lane `lane` of `lanes`: the padded copy's 2-D
// box (mode 0), or a rank-1 box a row (modes 1, 2).
__device__ __forceinline__ void load_block(int mode, unsigned char* dst, const CUtensorMap* row_map,
                                           const CUtensorMap* rows_map, int k0, int n0, uint64_t* b,
                                           int lane, int lanes) {
  if (mode == 0) {
    if (lane == 0) load_2d(dst, rows_map, n0, k0, b);
    return;
  }
  for (int r = lane; r < 64; r += lanes) {
    load_1d(dst + r * 128, row_map, (k0 + r) * kN + n0, b);
  }
}

// B's value at (k, n): different in every 16-byte chunk, so that a wrong swizzle shows.
__host__ __device__ inline float value(int k, int n) {
  return (float)((k * 7919 + n * 104729) % 2048) / 256.0f - 4.0f;
}

__global__ void fill(__nv_bfloat16* b, __nv_bfloat16* padded) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < (long long)kK * kPitch;
       i += (long long)gridDim.x * blockDim.x) {
    const int k = i / kPitch, n = i % kPitch;
    const float v = value(k, n);
    padded[i] = __float2bfloat16(n < kN ? v : 0.0f);
    if (n < kN) b[(long long)k * kN + n] = __float2bfloat16(v);
  }
}

// Question 1: blocks at (k0, n0) both ways into 1024-byte aligned buffers (ptxas pads the
// static shared words to 1024 bytes), each on a barrier of its own; elements that differ from
// B's values, in either buffer, counted into bad[0] and bad[1] (columns past N excluded: the
// row map reads the next row there, the padded copy zeros; rows past K: both zero-filled, not
// counted either), loads that never landed into bad[2] and bad[3]. `swizzled`: whether
// row_map swizzles (else the rank-1 rows land unswizzled, 128 bytes apart).
__global__ void layout(const __grid_constant__ CUtensorMap row_map,
                       const __grid_constant__ CUtensorMap rows_map, int k0, int n0, int swizzled,
                       int* bad) {
  extern __shared__ __align__(1024) unsigned char raw[];
  unsigned char *a = raw, *r = raw + kBlockBytes;
  __shared__ uint64_t full[2];
  if (threadIdx.x == 0) bar_init(&full[0], 1), bar_init(&full[1], 1);
  init_done();
  if (threadIdx.x == 0) {
    bar_expect(&full[0], kBlockBytes);
    load_block(0, a, &row_map, &rows_map, k0, n0, &full[0], 0, 1);
    bar_expect(&full[1], kBlockBytes);
    load_block(1, r, &row_map, &rows_map, k0, n0, &full[1], 0, 1);
  }
  const bool landed[2] = {bar_wait(&full[0], 0), bar_wait(&full[1], 0)};
  if (threadIdx.x == 0) bad[2] = !landed[0], bad[3] = !landed[1];
  for (int i = 2 * threadIdx.x; i < kBlockBytes; i += 2 * blockDim.x) {
    const int row = i / 128, chunk = (i % 128) / 16, col = (chunk ^ (row % 8)) * 8 + i % 16 / 2;
    const int plain = i % 128 / 2;  // the column of an unswizzled row
    const __nv_bfloat16 want = __float2bfloat16(value(k0 + row, n0 + col));
    const __nv_bfloat16 want_plain = __float2bfloat16(value(k0 + row, n0 + plain));
    const unsigned short bits = *reinterpret_cast<const unsigned short*>(&want);
    const unsigned short plain_bits = *reinterpret_cast<const unsigned short*>(&want_plain);
    if (k0 + row >= kK) continue;
    if (landed[0] && n0 + col < kN && *reinterpret_cast<const unsigned short*>(a + i) != bits) {
      atomicAdd(bad, 1);
    }
    const int rank1_col = swizzled ? col : plain;
    if (landed[1] && n0 + rank1_col < kN &&
        *reinterpret_cast<const unsigned short*>(r + i) != (swizzled ? bits : plain_bits)) {
      atomicAdd(bad + 1, 1);
    }
  }
}

// Question 2: each block walks its share of B's 64 x 256 stages `passes` times; warp 0
// produces (lane 0, or all 32 lanes in mode 2), warp 1 consumes by arriving. A wait that
// times out sets *stuck and ends the block's walk.
__global__ void rate(const __grid_constant__ CUtensorMap row_map,
                     const __grid_constant__ CUtensorMap rows_map, int mode, int passes,
                     int* stuck) {
  extern __shared__ __align__(1024) unsigned char raw[];
  unsigned char* ring = raw;
  __shared__ uint64_t full[kStages], empty[kStages];
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) bar_init(&full[s], 1), bar_init(&empty[s], 1);
  }
  init_done();
  const int columns = kPitch / 256, steps = kK / 64, lane = threadIdx.x % 32;
  const int lanes = mode == 2 ? 32 : 1;
  int stage = 0, phase = 0;
  for (int p = 0; p < passes; ++p) {
    for (int c = blockIdx.x; c < columns * steps; c += gridDim.x) {
      const int n0 = c % columns * 256, k0 = c / columns * 64;
      if (threadIdx.x < 32) {
        if (!bar_wait(&empty[stage], phase ^ 1)) {
          if (lane == 0) atomicExch(stuck, 1);
          return;
        }
        if (lane == 0) bar_expect(&full[stage], kStageBytes);
        __syncwarp();
        if (lane < lanes) {
          for (int j = 0; j < kBlocks; ++j) {
            load_block(mode, ring + stage * kStageBytes + j * kBlockBytes, &row_map, &rows_map, k0,
                       n0 + 64 * j, &full[stage], lane, lanes);
          }
        }
      } else if (threadIdx.x == 32) {
        if (!bar_wait(&full[stage], phase)) {
          atomicExch(stuck, 1);
          return;
        }
        bar_arrive(&empty[stage]);
      }
      if (++stage == kStages) stage = 0, phase ^= 1;
    }
  }
}

int main() {
  setvbuf(stdout, nullptr, _IONBF, 0);  // a trap kills the process: keep what was printed
  __nv_bfloat16 *b, *padded;
  CK(cudaMalloc(&b, (size_t)kK * kN * 2));
  CK(cudaMalloc(&padded, (size_t)kK * kPitch * 2));
  fill<<<1024, 256>>>(b, padded);
  CK(cudaDeviceSynchronize());
  CUtensorMap row_maps[2], rows_map;  // the rank-1 map swizzled, and not
  for (int swizzled = 0; swizzled < 2; ++swizzled) {
    cuuint64_t dims[1] = {(cuuint64_t)kK * kN}, strides[1] = {0};
    cuuint32_t box[1] = {64}, steps[1] = {1};
    CKU(cuTensorMapEncodeTiled(&row_maps[swizzled], CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 1, b, dims,
                               strides, box, steps, CU_TENSOR_MAP_INTERLEAVE_NONE,
                               swizzled ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_NONE,
                               CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                               CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
  }
  const CUtensorMap& row_map = row_maps[1];
  {
    cuuint64_t dims[2] = {kPitch, kK}, strides[1] = {kPitch * 2};
    cuuint32_t box[2] = {64, 64}, steps[2] = {1, 1};
    CKU(cuTensorMapEncodeTiled(&rows_map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, padded, dims,
                               strides, box, steps, CU_TENSOR_MAP_INTERLEAVE_NONE,
                               CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                               CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
  }
  lab_once = getenv("LAB_ONCE") != nullptr;
  int* bad;
  CK(cudaMallocManaged(&bad, 5 * sizeof(int)));
  const int shared = 2 * kBlockBytes;
  CK(cudaFuncSetAttribute(layout, cudaFuncAttributeMaxDynamicSharedMemorySize, shared));
  const int at[][2] = {{0, 0},      {64, 64},  {1, 3},       {77, 1000},
                       {3000, 129}, {5, 4032}, {4032, 4031}, {4032, 4032}};
  for (int swizzled = 0; swizzled < 2; ++swizzled) {
    for (const auto& [k0, n0] : at) {
      bad[0] = bad[1] = bad[2] = bad[3] = 0;
      layout<<<1, 256, shared>>>(row_maps[swizzled], rows_map, k0, n0, swizzled, bad);
      CK(cudaDeviceSynchronize());
      printf("layout k0 %d n0 %d: 2-D box %s, %d elements wrong; rank-1 rows (%s) %s, %d wrong\n",
             k0, n0, bad[2] ? "NEVER LANDED" : "landed", bad[0],
             swizzled ? "swizzled" : "unswizzled", bad[3] ? "NEVER LANDED" : "landed", bad[1]);
    }
  }
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int ring = kStages * kStageBytes, passes = 48;
  CK(cudaFuncSetAttribute(rate, cudaFuncAttributeMaxDynamicSharedMemorySize, ring));
  const double bytes = 2.0 * kK * kPitch * passes;
  const char* names[] = {"2-D boxes, padded copy", "rank-1 rows, one thread",
                         "rank-1 rows, 32 lanes"};
  for (int mode = 0; mode < 3; ++mode) {
    bad[4] = 0;  // one walk first: a mode whose loads never land is not timed
    rate<<<sms, 64, ring>>>(row_map, rows_map, mode, 1, bad + 4);
    CK(cudaDeviceSynchronize());
    if (bad[4]) {
      printf("rate %-24s LOADS NEVER LANDED\n", names[mode]);
      continue;
    }
    const float ms =
        time_it([&] { rate<<<sms, 64, ring>>>(row_map, rows_map, mode, passes, bad + 4); });
    CK(cudaDeviceSynchronize());
    printf("rate %-24s %.4f ms, %.1f GB/s (%.1f an SM)%s\n", names[mode], ms, bytes / ms / 1e6,
           bytes / ms / 1e6 / sms, bad[4] ? ": LOADS NEVER LANDED" : "");
  }
  return 0;
}
