#include "tests/codegen/corpus.h"

#include <cmath>

namespace tessel::testing {
namespace {

Tensor In(Shape shape, DType dtype = DType::kF32) {
  return from_vector(std::vector<float>(shape.numel(), 1.0f), shape, dtype, Device::kCPU);
}

}  // namespace

std::vector<CorpusCase> Corpus() {
  std::vector<CorpusCase> c;
  Tensor x = In({64, 96}), h = In({64, 96}, DType::kBF16), f = In({64, 96}, DType::kF16);
  Tensor i = from_vector(std::vector<int32_t>(64 * 96, 3), {64, 96}, DType::kI32, Device::kCPU);
  Tensor v = In({96}), big = In({1 << 20});
  std::vector<Tensor> unary;
  for (const Tensor& t : {x, h, f}) {
    for (Tensor u : {neg(t), abs(t), exp(t), log(t), sqrt(t), rsqrt(t), sin(t), cos(t), tanh(t),
                     erf(t), sigmoid(t), relu(t), gelu(t), gelu_erf(t), silu(t)}) {
      unary.push_back(u);
    }
  }
  c.push_back({"unary", unary});
  c.push_back(
      {"binary",
       {x + v, x - h, h * f, x / 3.0, pow(abs(x), v), maximum(h, x), minimum(x, 0.5), 2.0 - x}});
  c.push_back({"integers", {i + i, i * i, -i, abs(i), relu(i), pow(i, i), i / i, maximum(i, i)}});
  c.push_back({"compare_where_cast",
               {eq(x, v), ne(h, x), lt(i, x), le(x, x), gt(f, x), ge(i, i),
                where(gt(x, 0.0 * x), x, h), cast(x, DType::kI32), cast(i, DType::kBF16),
                cast(x, DType::kBool), cast(gt(x, v), DType::kF32), cast(h, DType::kF16)}});
  c.push_back({"generators",
               {randn({3, 50}, 1), rand({77}, 2, DType::kBF16), arange(10, DType::kI32),
                full({4}, 2.5, DType::kF16)}});
  c.push_back({"views",
               {permute(In({4, 5, 6}), {2, 0, 1}) * 2.0, slice(x, 1, 3, 50) + 1.0,
                reshape(transpose(x), {96, 8, 8}) - 1.0, broadcast_to(v, {3, 64, 96}) * x,
                concat({x, h, slice(x, 0, 0, 5)}, 0)}});
  c.push_back({"chain", {gelu(big * 1.5 + 0.25) * sigmoid(big) + big}});
  c.push_back({"reductions",
               {sum(x), mean(h, {0}), max(x, {1}, true), min(f, {-1}), sum(i, {0}),
                max(gt(x, v), {1}), mean(In({4, 5, 6}), {0, 2})}});
  c.push_back({"siblings", {sum(big), sum(big * big), max(big)}});
  c.push_back({"normalizations",
               {softmax(h), log_softmax(x, 0), layer_norm(h, v, v), rms_norm(f, v),
                softmax(In({2, 40000}))}});
  c.push_back({"gemm",
               {matmul(x, In({96, 33})),
                gelu(matmul(h, In({96, 40}, DType::kBF16)) + In({40}, DType::kBF16)),
                matmul(In({2, 1, 5, 7}), In({3, 7, 4})), matmul(transpose(x), x),
                matmul(reshape(In({6, 5, 7}), {2, 3, 5, 7}),
                       transpose(reshape(In({3, 4, 7}), {1, 3, 4, 7})))}});
  {
    // Tensor-core GEMMs on sm_90a: each tile width, both layouts of each operand, batches
    // broadcast, ragged edges, and epilogues with bias along either axis, a residual, an
    // extra output and casts.
    const DType b16 = DType::kBF16;
    Tensor a = In({256, 128}, b16), w = In({128, 512}, b16), t = matmul(a, w) + In({512}, b16);
    c.push_back({"tensor_core_gemms",
                 {gelu(t) + In({256, 512}, b16), t,
                  cast(matmul(In({2048, 64}, b16), In({64, 2048}, b16)), DType::kF32),
                  matmul(transpose(In({128, 256}, b16)), transpose(In({512, 128}, b16))),
                  matmul(In({4, 100, 64}, DType::kF16), In({64, 72}, DType::kF16)) * 0.5 +
                      In({100, 1}, DType::kF16),
                  relu(matmul(In({3, 1, 40, 24}, b16), In({2, 24, 200}, b16))),
                  gelu(matmul(In({300, 136}, b16), In({136, 264}, b16)) + In({264}, b16)) +
                      In({300, 264}, b16)}});
  }
  {
    // Operand rows that are not 16-byte multiples, staged (copied to padded rows) for the
    // tensor-core kernels: K odd, N odd, both, a transposed operand, a batch with an epilogue.
    const DType b16 = DType::kBF16;
    c.push_back({"staged_gemms",
                 {matmul(In({70, 33}, b16), In({33, 48}, b16)),
                  gelu(matmul(In({100, 64}, b16), In({64, 45}, b16)) + In({45}, b16)),
                  matmul(In({200, 95}, b16), In({95, 95}, b16)),
                  matmul(transpose(In({33, 70}, b16)), In({33, 40}, b16)),
                  matmul(In({3, 20, 30}, DType::kF16), In({30, 50}, DType::kF16)) * 2.0}});
  }
  {
    // f32 on TF32 tensor cores (mma.sync on every target): both layouts of each operand, rows
    // that are not 16-byte multiples (staged); B as stored on tiles of 128 x 256, 128 x 128
    // and 64 x 64 (sm_90a reads it into registers); and a batch too large for the tensor-core
    // kernels' tile order, which the plain kernel takes, rounding as TF32.
    set_matmul_precision(MatmulPrecision::kTF32);
    c.push_back({"tf32_gemms",
                 {matmul(In({256, 96}), In({96, 200})) + In({200}),
                  matmul(transpose(In({64, 128})), transpose(In({256, 64}))),
                  matmul(In({70, 33}), In({33, 50})), matmul(In({1 << 19, 2, 4}), In({4, 8})),
                  gelu(matmul(In({2000, 96}), In({96, 2100})) + In({2100})),
                  matmul(In({1100, 77}), In({77, 2100})), matmul(In({40, 200}), In({200, 1000}))}});
    // Three TF32 products (kHigh): both layouts, rows staged, an epilogue.
    set_matmul_precision(MatmulPrecision::kHigh);
    c.push_back({"split_tf32_gemms",
                 {gelu(matmul(In({256, 96}), In({96, 200})) + In({200})),
                  matmul(transpose(In({64, 128})), transpose(In({256, 64}))),
                  matmul(In({70, 33}), In({33, 50}))}});
    set_matmul_precision(MatmulPrecision::kHighest);
  }
  // Exact f32 on the portable kernel: 128-wide tiles (a grid of at least 132), each layout of
  // each operand read as 16-byte vectors, rows of odd length read element by element (one
  // block an SM), a broadcast batch, and f64 (two doubles a vector).
  c.push_back({"simt_gemms",
               {matmul(In({1536, 64}), In({64, 1536})), matmul(In({1536, 33}), In({33, 1536})),
                matmul(transpose(In({64, 1536})), transpose(In({1536, 64}))),
                matmul(In({70, 33}), transpose(In({50, 33}))) + In({50}),
                matmul(In({3, 40, 24}), In({24, 36})),
                matmul(transpose(In({30, 20}, DType::kF64)), In({30, 18}, DType::kF64))}});
  {
    // Sibling GEMMs (the same A) as one Hopper kernel: q/k/v widths stored by TMA; different
    // epilogues over 100 ragged rows; B read transposed, one width odd (STRIDED).
    const DType b16 = DType::kBF16;
    Tensor x = In({96, 128}, b16), y = In({100, 64}, b16), z = In({64, 64}, b16);
    c.push_back(
        {"sibling_gemms",
         {matmul(x, In({128, 256}, b16)), matmul(x, In({128, 64}, b16)),
          matmul(x, In({128, 64}, b16)), gelu(matmul(y, In({64, 136}, b16)) + In({136}, b16)),
          matmul(y, In({64, 72}, b16)) * 0.5 + In({100, 72}, b16), matmul(y, In({64, 40}, b16)),
          matmul(z, transpose(In({96, 64}, b16))), matmul(z, transpose(In({45, 64}, b16)))}});
  }
  {
    // Few rows (decoding): the Hopper kernel's swapped tiles, one program each (together they
    // would be one grouped GEMM). 16 rows stored by TMA (one and two consumers); one row with
    // bias and GELU in the epilogue warps; 20 rows (32-row tiles) in f16 with B read
    // transposed and a ragged width (STRIDED); q/k/v siblings of 8 rows; a batch of 3 x 5 rows
    // against a shared weight; SwiGLU's gate and up of 16 rows; experts of 1 and 20 rows.
    const DType b16 = DType::kBF16, f16 = DType::kF16;
    Tensor x = In({8, 256}, b16);
    c.push_back({"swapped_gemm", {matmul(In({16, 512}, b16), In({512, 4096}, b16))}});
    c.push_back({"swapped_gemm_wide", {matmul(In({16, 128}, b16), In({128, 32768}, b16))}});
    c.push_back({"swapped_epilogue",
                 {gelu(matmul(In({1, 256}, b16), In({256, 200}, b16)) + In({200}, b16))}});
    c.push_back(
        {"swapped_strided", {matmul(In({20, 64}, f16), transpose(In({45, 64}, f16))) * 0.5}});
    c.push_back({"swapped_siblings",
                 {matmul(x, In({256, 512}, b16)), matmul(x, In({256, 128}, b16)),
                  matmul(x, In({256, 128}, b16))}});
    c.push_back({"swapped_batch", {matmul(In({3, 5, 64}, b16), In({64, 96}, b16))}});
    Tensor y = In({16, 128}, b16);
    c.push_back({"swapped_dual",
                 {silu(matmul(y, In({128, 1024}, b16))) * matmul(y, In({128, 1024}, b16))}});
    c.push_back({"swapped_grouped", grouped_matmul({In({1, 128}, b16), In({20, 128}, b16)},
                                                   {In({128, 256}, b16), In({128, 136}, b16)})});
    // 65-128 rows over enough columns: one swapped tile row of 128 (A's box the output's rows
    // rounded up to 8), with bias and GELU, and SwiGLU's dual GEMM over 66 tiles of 64.
    Tensor r = In({100, 256}, b16);
    c.push_back({"swapped_rows_128", {gelu(matmul(r, In({256, 8448}, b16)) + In({8448}, b16))}});
    c.push_back({"swapped_rows_128_dual",
                 {silu(matmul(r, In({256, 4224}, b16))) * matmul(r, In({256, 4224}, b16))}});
  }
  {
    // Dual GEMMs (the same A, the products met elementwise): SwiGLU over ragged rows and
    // columns; GEGLU in f16 with the gate also an output, 64 rows (one consumer); a sum of two
    // products with B read transposed.
    const DType b16 = DType::kBF16, f16 = DType::kF16;
    Tensor x = In({100, 64}, b16), y = In({64, 128}, f16), z = In({256, 64}, b16);
    // 128-wide tiles: both accumulators in the registers; 320 tiles, more than two rounds:
    // A's loads kept in L2 (GemmTile::keep_a)
    Tensor w = In({4096, 64}, b16);
    Tensor gate = matmul(y, In({128, 264}, f16));
    c.push_back(
        {"dual_gemms",
         {silu(matmul(x, In({64, 136}, b16))) * matmul(x, In({64, 136}, b16)),
          gelu(gate) * matmul(y, In({128, 264}, f16)), gate,
          matmul(z, transpose(In({200, 64}, b16))) + matmul(z, transpose(In({200, 64}, b16))),
          silu(matmul(w, In({64, 1160}, b16))) * matmul(w, In({64, 1160}, b16))}});
  }
  {
    // K slices (few tiles, long K: every tile's K cut into slices for the SMs to share, the
    // pieces added through the workspace), one program each: 64 rows stored by TMA; ragged
    // rows, columns and K with bias, GELU and a residual in the epilogue warps; q/k/v
    // siblings; SwiGLU's dual GEMM; 16 rows of a dual GEMM on swapped tiles.
    const DType b16 = DType::kBF16;
    Tensor x = In({64, 2048}, b16), y = In({16, 2048}, b16);
    c.push_back({"k_slices_gemm", {matmul(x, In({2048, 512}, b16))}});
    c.push_back({"k_slices_epilogue",
                 {gelu(matmul(In({50, 1000}, b16), In({1000, 200}, b16)) + In({200}, b16)) +
                  In({50, 200}, b16)}});
    c.push_back({"k_slices_siblings",
                 {matmul(x, In({2048, 256}, b16)), matmul(x, In({2048, 64}, b16)),
                  gelu(matmul(x, In({2048, 72}, b16)))}});
    c.push_back({"k_slices_dual",
                 {silu(matmul(x, In({2048, 264}, b16))) * matmul(x, In({2048, 264}, b16))}});
    c.push_back({"k_slices_swapped_dual",
                 {silu(matmul(y, In({2048, 1024}, b16))) * matmul(y, In({2048, 1024}, b16))}});
    // Many tiles, a last round of few: those tiles' K in slices (tall outputs of one 128-wide
    // tile column: 150 tiles stored by TMA, then 149 with an epilogue over ragged rows and
    // columns; the dual GEMM's 128 x 128 tiles with ragged rows and columns: 172).
    c.push_back({"k_slices_last_round", {matmul(In({19200, 1024}, b16), In({1024, 128}, b16))}});
    c.push_back({"k_slices_last_round_epilogue",
                 {gelu(matmul(In({19000, 1000}, b16), In({1000, 120}, b16)) + In({120}, b16)) +
                  In({19000, 120}, b16)}});
    Tensor z = In({200, 2048}, b16);
    c.push_back({"k_slices_last_round_dual",
                 {silu(matmul(z, In({2048, 11000}, b16))) * matmul(z, In({2048, 11000}, b16))}});
  }
  {
    // Grouped GEMMs (independent, any sizes): experts of 1 to 50 rows stored by TMA; problems
    // of different K and N with their own epilogues, one with B read transposed apart.
    const DType b16 = DType::kBF16;
    std::vector<Tensor> a, w;
    for (int64_t m : {1, 50, 7, 33}) {
      a.push_back(In({m, 128}, b16));
      w.push_back(In({128, 264}, b16));
    }
    std::vector<Tensor> outs = grouped_matmul(a, w);
    outs.push_back(gelu(matmul(In({300, 64}, b16), In({64, 136}, b16)) + In({136}, b16)));
    outs.push_back(matmul(In({129, 200}, b16), In({200, 72}, b16)) * 2.0);
    c.push_back({"grouped_gemms", outs});
  }
  c.push_back({"api_example",
               {softmax(gelu(matmul(h, In({96, 128}, DType::kBF16)) + In({128}, DType::kBF16)))}});
  std::vector<Tensor> updates;
  for (int k = 0; k < 8; ++k) {
    Tensor p = In({int64_t{64} << k});
    updates.push_back(p - 0.01 * p);
  }
  c.push_back({"updates", updates});
  c.push_back({"shared", {sum(tanh(exp(sin(x))), {0}), sum(tanh(exp(sin(x))), {1}), x * 2.0}});
  // f64 and i64: double math, every reduction kind next to f32 ones (block and two-stage),
  // the SIMT matmul in double with an epilogue, wrapping 64-bit integers, casts between them.
  const Tensor d = In({64, 96}, DType::kF64), l = cast(i, DType::kI64),
               dbig = In({1 << 20}, DType::kF64);
  c.push_back({"wide_dtypes",
               {exp(d) * sigmoid(d) + rsqrt(d) - tanh(d) / 3.0,
                softmax(d, -1),
                layer_norm(d, In({96}, DType::kF64), In({96}, DType::kF64)),
                sum(d, {0}),
                max(d - x, {1}),
                prod(d, {1}),
                mean(dbig) + sum(big),
                matmul(d, In({96, 40}, DType::kF64)) + 1.0,
                l * l + l,
                -l,
                abs(l),
                pow(l, l),
                remainder(l, l) + fmod(l, l),
                maximum(l, i),
                sum(l, {1}),
                max(l),
                prod(l),
                cast(d, DType::kI64),
                cast(l, DType::kF64) / d,
                cast(x, DType::kF64),
                cast(d, DType::kBF16),
                floor(d) + round(d),
                rand({99}, 3, DType::kF64)}});
  // Gathers inlined into pointwise kernels, a reduction's prologue and a GEMM's epilogue,
  // along every axis, with i32 and i64 indices (some computed in the kernel).
  const Tensor ids = cast(i, DType::kI64), table = In({1000, 96}, DType::kBF16);
  c.push_back(
      {"gathers",
       {embedding(table, slice(ids, 1, 0, 7)) * 2.0 + In({7, 96}, DType::kBF16), gather(x, 0, i),
        gather(h, 1, ids + 1), index_select(d, 0, reshape(slice(ids, 0, 0, 1), {-1})),
        sum(embedding(x, slice(i, 0, 0, 1)), {2}), one_hot(slice(ids, 0, 0, 1), 9),
        matmul(x, In({96, 96})) + gather(x, 1, ids)}});
  // Scans along contiguous lines (a block per line; ragged too; few long lines chained) and
  // strided ones (a thread per line), every accumulator type, with a prologue.
  c.push_back({"scans",
               {cumsum(x, 1), cumsum(h, 0), cumprod(d, 1), cumsum(i, 1), cumprod(l, 0),
                cumsum(exp(x) * 2.0, -1), cumsum(In({5, 7}), 1), cumsum(gt(x, v), 1),
                cumsum(In({4, 5, 6}, DType::kF16), 1), cumsum(In({1 << 20}), 0),
                cumprod(In({3, 50000}, DType::kF64), 1)}});
  // Sorts: lines one block holds (every key type, either direction, strided lines, a
  // prologue), and long lines: small k selected again from the parts' runs, large k merged.
  const Tensor long_rows = In({2, 40000});
  c.push_back({"sorts",
               {argsort(x), sort(h, 0, true).first, topk(i, 5, 1).second, topk(l, 3, 0).second,
                argsort(d, 1, true), argsort(gt(x, v)), topk(exp(x) * 2.0, 7, 0, false).second,
                topk(long_rows, 50).second, topk(long_rows, 3000).second, argsort(long_rows),
                topk(big, 1000).second}});
  // Small k over long lines: a sampled threshold first (sort_threshold.cuh), 4- and 8-byte
  // keys, either direction, vectors and single loads, a prologue.
  const Tensor very_long = In({2, 131072});
  c.push_back({"topk_threshold",
               {topk(very_long, 50).second, topk(cast(very_long, DType::kI64), 8).second,
                topk(exp(In({3, 70001})) * 2.0, 10, -1, false).second,
                topk(In({2, 262144}, DType::kF64), 64).second}});
  // Rows longer than a block holds, shared by a cluster's blocks where clusters exist
  // (reduction_codegen.cc): 8 and 2 blocks a row, an odd length, chained reductions, f64,
  // a reduction-only group (logsumexp) and siblings.
  const Tensor wide_rows = In({3, 50000});
  c.push_back(
      {"cluster_rows",
       {softmax(In({2, 131072}, DType::kBF16)), layer_norm(In({2, 20001}), Tensor(), Tensor()),
        log_softmax(In({2, 40000}, DType::kF64)), logsumexp(wide_rows, {1}), sum(wide_rows, {1}),
        max(wide_rows * 2.0, {1}),
        // 8-byte values past half a block row: two blocks where clusters exist, one (as
        // before) elsewhere
        softmax(In({2, 10000}, DType::kF64)), argmax(In({2, 10000}), 1)}});
  // Many rows longer than a block's registers, held in shared memory (row_held.cc): bf16
  // and f32, an odd length (copies of a value at a time), two inputs along the row, one of
  // them past the bytes held (read from memory where a sweep needs it), a layer norm's
  // broadcast weight and bias, a chain after log_softmax.
  const Tensor vocab = In({256, 32000}, DType::kBF16), rows24k = In({300, 24576});
  c.push_back({"held_rows",
               {softmax(vocab), layer_norm(In({256, 20001}), In({20001}), In({20001})),
                softmax(In({256, 32768}, DType::kBF16)) * In({256, 32768}, DType::kBF16),
                log_softmax(vocab) * 2.0, rows24k - mean(rows24k, {1}, true)}});
  // Cross-entropy's one-hot pick over streamed rows (one_hot_sum.cc): eq with i64 targets
  // beside the online logsumexp (256 rows: one block a row); the ne form of a mean with i32
  // targets over 4 rows of 140000 (past what clusters hold: rows in chunks); the where also a
  // result, and the comparison (then the sum reads them from buffers: no one-hot pick).
  const Tensor logits = In({256, 32000}, DType::kBF16), long_logits = In({4, 140000});
  const Tensor picks =
      where(eq(arange(32000, DType::kI64), In({256, 1}, DType::kI64)), logits, 0.0);
  const Tensor hits = eq(arange(500, DType::kI64), In({8, 1}, DType::kI64));
  c.push_back(
      {"one_hot_sums",
       {logsumexp(logits, {1}, true) - sum(picks, {1}, true),
        mean(where(ne(arange(140000, DType::kI32), In({4, 1}, DType::kI32)), 0.25, long_logits),
             {1})}});
  c.push_back({"one_hot_sums_of_buffers",
               {picks, sum(picks, {1}), hits, sum(where(hits, In({8, 500}), 0.0), {1})}});
  // Column reductions (column_reduction.cc): leading, middle and two axes reduced, columns
  // long enough to split over blocks, a row count off a multiple of 32, every accumulator
  // type, siblings with an epilogue, a prologue.
  const Tensor tall = In({4096, 64}), cube = In({6, 100, 48}, DType::kBF16);
  c.push_back({"columns",
               {sum(tall, {0}), mean(cube, {1}), max(cast(In({70, 1000}), DType::kI32), {0}),
                min(cast(tall, DType::kI64), {0}), prod(In({33, 40}, DType::kF64), {0}),
                sqrt(sum(tall * tall, {0})) / (sum(tall, {0}) + 1.0),
                sum(In({16, 32, 64}, DType::kF16), {0, 1}), sum(exp(In({300, 1000})) * 2.0, {0}),
                sum(In({8, 5, 33}), {1}, true), min(cube - In({1, 48}, DType::kBF16), {0, 1}),
                sum(In({300, 64}, DType::kBool), {0})}});
  // 2-byte transposes: tiles of 64 x 64, 32 x 64 (an axis under 64), 64 x 32 (input rows 2 MB
  // apart); 1-byte ones.
  const DType half = DType::kBF16;
  c.push_back({"transposes_narrow",
               {transpose(In({130, 70}, half)) + 1.0, transpose(In({1000, 40}, half)) * 2.0,
                permute(In({64, 256, 32, 128}, half), {3, 2, 1, 0}) * 2.0,
                permute(gt(In({2, 100, 3, 64}, half), 0.0), {0, 2, 3, 1})}});
  // 30 sibling column sums of f64 in one kernel: shared memory stays one buffer.
  std::vector<Tensor> siblings;
  const Tensor wide = In({4096, 256}, DType::kF64);
  for (int i = 0; i < 30; ++i) siblings.push_back(sum(wide * (1.0 + i), {0}));
  c.push_back({"column_siblings", siblings});
  // Normalizations over leading and middle axes held on chip (column_normalization.cc):
  // softmax over each non-trailing axis, a user-written layer norm over a middle axis with
  // its mean also written, extents off a multiple of 32, f64 and bf16; many short columns of
  // f32, 64 a block; columns of a warp's 32 parts (read back by lanes).
  const Tensor cols = In({6, 100, 48});
  const Tensor centered = cols - mean(cols, {1}, true);
  const Tensor parts32 = In({500, 70});
  const Tensor centered32 = parts32 - mean(parts32, {0}, true);
  c.push_back({"column_normalizations",
               {softmax(cols, 1), softmax(In({300, 33}, DType::kBF16), 0),
                centered / sqrt(mean(centered * centered, {1}, true) + 1e-5), mean(cols, {1}, true),
                log_softmax(In({7, 40, 32}, DType::kF64), 0), softmax(In({250, 17000}), 0),
                softmax(In({3, 512, 40}, DType::kBF16), 1),
                centered32 / sqrt(mean(centered32 * centered32, {0}, true) + 1e-5)}});
  // Longer columns: a few a block, split over a cluster's blocks on sm_90 (f32 staged in
  // shared memory, 128 bytes of each row where parts are even, else 64; bf16 staged a pair of
  // columns a copy where the innermost extent is even, else in registers as f64, 32 bytes), or
  // column kernels and an epilogue; chained reductions and a column input with staged lanes.
  auto standardized = [](const Tensor& x) {
    const Tensor centered = x - mean(x, {0}, true);
    return centered / sqrt(mean(centered * centered, {0}, true) + 1e-5);
  };
  c.push_back({"long_columns",
               {softmax(In({5000, 40}), 0), softmax(In({3000, 64}, DType::kBF16), 0),
                softmax(In({3000, 33}, DType::kBF16), 0), softmax(In({16384, 40}, DType::kBF16), 0),
                standardized(In({6000, 20})), standardized(In({4096, 33})),
                softmax(In({3001, 24}) * In({1, 24}), 0), softmax(In({16384, 40}), 0),
                log_softmax(In({3000, 40}, DType::kF64), 0), softmax(In({1500, 2, 40}), 0),
                // f32 values reduced, an 8-byte result: held as f32 columns are
                cast(softmax(In({12000, 40}), 0), DType::kF64)}});
  // Many short 16-bit columns as a tile in shared memory (column_shape.cc's TiledShape): a
  // ragged part and a ragged last block, a middle axis of 512 (64 KB a block), chained
  // reductions with a column input, a layer norm's scale and shift; and what keeps its lanes
  // in registers (no spills either way): two outputs, a softmax's gradient.
  const Tensor tiled = In({512, 17000}, DType::kBF16);
  const Tensor tiled_log = log_softmax(tiled, 0), tiled_grad = In({512, 17000}, DType::kBF16);
  c.push_back(
      {"column_tiles",
       {softmax(In({250, 17000}, DType::kBF16), 0), softmax(In({33, 512, 520}, DType::kBF16), 1),
        standardized(In({256, 16904}, DType::kBF16) * In({1, 16904}, DType::kBF16)),
        standardized(In({300, 16904}, DType::kF16)) * In({1, 16904}, DType::kF16) +
            In({1, 16904}, DType::kF16),
        softmax(tiled, 0), tiled_log, tiled_grad - exp(tiled_log) * sum(tiled_grad, {0}, true)}});
  // Transposing pointwise kernels (transpose_codegen.cc): the last two axes swapped, 4-D
  // permutes, edges off a multiple of the tile, a reshape that moves the contiguous axis,
  // two outputs of different dtypes, a transposed read against an aligned one of fewer bytes.
  const Tensor square = In({70, 45});
  c.push_back({"transposes",
               {transpose(square) + 1.0, permute(In({2, 40, 3, 33}, DType::kBF16), {0, 3, 1, 2}),
                permute(In({33, 2, 40}, DType::kF16), {2, 1, 0}) * 2.0,
                reshape(transpose(In({64, 48})), {48, 8, 8}) + 1.0,
                // 2-byte outputs: tiles of 64 x 64, ragged at both edges
                transpose(In({130, 70}, DType::kBF16)) + 1.0}});
  c.push_back({"transpose_siblings",
               {exp(transpose(square)), cast(transpose(square) * 2.0, DType::kI64),
                transpose(square) + In({1, 70})}});
  // scatter_add: along either axis, an index smaller than src and x, a prologue.
  const Tensor targets = cast(In({30, 8}), DType::kI64);
  c.push_back(
      {"scatters",
       {scatter_add(In({50, 8}), 0, targets, In({30, 8})),
        scatter_add(cast(In({50, 8}), DType::kI32), 0, targets, cast(In({40, 9}), DType::kI32)),
        scatter_add(In({8, 50}, DType::kBF16), 1, cast(In({6, 20}), DType::kI32),
                    In({8, 20}, DType::kBF16) * 2.0)}});
  {
    // Attention chains (one attention kernel on sm_80 and sm_90a): a scaled softmax at head
    // dimension 64; f16 at 128 with a bias and a causal mask written by hand; grouped heads
    // (k and v broadcast over 4 query heads) with ragged query and key counts.
    const DType b16 = DType::kBF16, f16 = DType::kF16;
    Tensor q = In({2, 4, 200, 64}, b16), k = In({2, 4, 300, 64}, b16);
    Tensor scaled = matmul(softmax(matmul(q, transpose(k)) * 0.125, -1), In({2, 4, 300, 64}, b16));
    const int64_t n = 130;
    Tensor x = cast(matmul(In({3, n, 128}, f16), transpose(In({3, n, 128}, f16))), DType::kF32) +
               In({n, n});
    x = masked_fill(x, triu(ones({n, n}, DType::kBool), 1), -INFINITY);
    Tensor e = exp(x - max(x, {-1}, true));
    Tensor masked = matmul(cast(e / sum(e, {-1}, true), f16), In({3, n, 128}, f16));
    Tensor grouped =
        matmul(softmax(matmul(In({2, 4, 77, 64}, b16), transpose(In({2, 1, 45, 64}, b16))), -1),
               In({2, 1, 45, 64}, b16));
    // As bench/attention_bench.cc writes it: q split into head groups by a reshape, scaled
    // scores and a causal mask of queries at the end of the keys, at head dimension 128.
    const int64_t sq = 96, sk = 160;
    Tensor qg = reshape(In({2, 8, sq, 128}, b16), {2, 2, 4, sq, 128});
    Tensor kg = In({2, 2, 1, sk, 128}, b16);
    Tensor causal =
        matmul(softmax(masked_fill(matmul(qg, transpose(kg)) * (1 / std::sqrt(128.0)),
                                   triu(ones({sq, sk}, DType::kBool), sk - sq + 1), -INFINITY),
                       -1),
               In({2, 2, 1, sk, 128}, b16));
    // Decoding one query a head, few heads: the keys split among blocks, then combined.
    Tensor decode = matmul(
        softmax(matmul(In({1, 2, 4, 1, 128}, b16), transpose(In({1, 2, 1, 1024, 128}, b16))), -1),
        In({1, 2, 1, 1024, 128}, b16));
    // Read through views: the language model's heads of width 32 sliced from one packed
    // projection with its `tril(ones) == 0` mask; heads of width 80 permuted out of
    // [B, S, H, D]; a residual and a cast joining the store; a cache's valid length.
    const int64_t t = 40;
    const Tensor qkv = In({t, 384}, b16);
    const auto heads = [&](int i) {
      return permute(reshape(slice(qkv, 1, i * 128, (i + 1) * 128), {t, 4, 32}), {1, 0, 2});
    };
    Tensor packed =
        matmul(softmax(masked_fill(matmul(heads(0), transpose(heads(1))) * 0.17,
                                   eq(tril(ones({t, t}, DType::kBool)), false), -INFINITY),
                       -1),
               heads(2));
    const auto last = [&](int64_t s) { return permute(In({2, s, 3, 80}, b16), {0, 2, 1, 3}); };
    Tensor heads_last = matmul(softmax(matmul(last(70), transpose(last(150))), -1), last(150));
    Tensor epilogue = cast((scaled + In({2, 4, 200, 64}, b16)) * 2.0, DType::kF32);
    Tensor cached =
        matmul(softmax(where(lt(arange(2048, DType::kI32), 700),
                             matmul(In({4, 8, 1, 128}, b16), transpose(In({4, 8, 2048, 128}, b16))),
                             -INFINITY),
                       -1),
               In({4, 8, 2048, 128}, b16));
    c.push_back({"attention", {scaled, masked, grouped, causal, decode}});
    // Head dimension 256 (wgmma with key tiles of 80 on sm_90a; mma.sync on sm_80, Q read from
    // shared memory at each step).
    Tensor wide = matmul(
        softmax(matmul(In({2, 2, 100, 256}, b16), transpose(In({2, 2, 300, 256}, b16))) * 0.0625,
                -1),
        In({2, 2, 300, 256}, b16));
    // The keys of one head split 39 ways (more shares than one round of loads); at D = 256, 12
    // ways for 100 queries (two consumers, rows in passes of 16); at D = 64, 6 ways for 150
    // queries (three consumers).
    Tensor one_head =
        matmul(softmax(matmul(In({1, 1, 1, 128}, b16), transpose(In({1, 1, 20000, 128}, b16))), -1),
               In({1, 1, 20000, 128}, b16));
    Tensor wide_split = matmul(
        softmax(matmul(In({1, 1, 100, 256}, b16), transpose(In({1, 1, 4000, 256}, b16))), -1),
        In({1, 1, 4000, 256}, b16));
    Tensor narrow_split =
        matmul(softmax(matmul(In({1, 1, 150, 64}, b16), transpose(In({1, 1, 3000, 64}, b16))), -1),
               In({1, 1, 3000, 64}, b16));
    // Multi-query: 32 query heads over one K/V head, 32 shares of 32 rows merged by a launch.
    Tensor multi_query = matmul(
        softmax(matmul(In({1, 1, 32, 1, 128}, b16), transpose(In({1, 1, 1, 16384, 128}, b16))), -1),
        In({1, 1, 1, 16384, 128}, b16));
    c.push_back({"attention through views", {packed, heads_last, epilogue, cached}});
    c.push_back({"attention, head dimension 256", {wide}});
    c.push_back({"attention, keys split", {one_head, wide_split, narrow_split, multi_query}});
  }
  return c;
}

}  // namespace tessel::testing
