#include "tools/examples.h"

#include <cmath>

namespace tessel::tools {
namespace {

// An input without data: planning and code generation need only its type.
Tensor In(Shape shape, DType dtype, Device device) {
  return Tensor(MakeInputNode(dtype, device, shape, nullptr));
}

}  // namespace

std::vector<Example> Examples(Device d) {
  std::vector<Example> e;
  Tensor x = In({4096, 1024}, DType::kBF16, d);
  Tensor w = In({1024, 4096}, DType::kBF16, d);
  Tensor b = In({4096}, DType::kBF16, d);
  e.push_back({"api",
               "api.md: softmax(gelu(matmul(x, w) + b)) in bf16",
               {softmax(gelu(matmul(x, w) + b))}});
  Tensor x2 = In({8192, 4096}, DType::kBF16, d);
  Tensor w2 = In({4096, 11008}, DType::kBF16, d);
  Tensor b2 = In({11008}, DType::kBF16, d), r2 = In({8192, 11008}, DType::kBF16, d);
  e.push_back({"gemm_epilogue",
               "gelu(matmul(x, w) + b) + r, 8192 x 11008 x 4096 bf16: one GEMM kernel",
               {gelu(matmul(x2, w2) + b2) + r2}});
  Tensor odd_a = In({4097, 4095}, DType::kBF16, d), odd_b = In({4095, 4095}, DType::kBF16, d);
  e.push_back({"gemm_unaligned",
               "matmul of 4097 x 4095 by 4095 x 4095 bf16: rows of 8190 bytes, staged for TMA",
               {matmul(odd_a, odd_b)}});
  // q, k and v projections (GQA widths) and SwiGLU's gate and up of x [rows, 4096].
  auto qkv = [&](const Tensor& x) {
    return std::vector<Tensor>{matmul(x, In({4096, 4096}, DType::kBF16, d)),
                               matmul(x, In({4096, 1024}, DType::kBF16, d)),
                               matmul(x, In({4096, 1024}, DType::kBF16, d))};
  };
  Tensor wg = In({4096, 11008}, DType::kBF16, d), wu = In({4096, 11008}, DType::kBF16, d);
  auto swiglu = [&](const Tensor& x) {
    return std::vector<Tensor>{silu(matmul(x, wg)) * matmul(x, wu)};
  };
  Tensor x64 = In({64, 4096}, DType::kBF16, d);
  e.push_back({"qkv_decode",
               "q, k and v projections of 64 rows (4096 x 4096, 1024, 1024 bf16): one GEMM",
               qkv(x64)});
  e.push_back({"projection_decode",
               "matmul of 64 rows by 4096 x 4096 bf16: 64 tiles, each K in two slices",
               {matmul(x64, In({4096, 4096}, DType::kBF16, d))}});
  e.push_back({"swiglu_decode", "silu(x wg) * (x wu) for 64 rows, F = 11008 bf16: one dual GEMM",
               swiglu(x64)});
  // The whole MLP: the dual GEMM, then the down projection of 64 x 4096 x 11008 (64 tiles,
  // each K in two slices).
  Tensor wd = In({11008, 4096}, DType::kBF16, d);
  e.push_back({"swiglu_mlp_decode",
               "(silu(x wg) * (x wu)) wd for 64 rows, F = 11008 bf16: a dual GEMM, then the down "
               "projection",
               {matmul(swiglu(x64)[0], wd)}});
  Tensor x1024 = In({1024, 4096}, DType::kBF16, d);
  e.push_back({"qkv_1024",
               "q, k and v projections of 1024 rows (4096 x 4096, 1024, 1024 bf16): one GEMM of "
               "several tile rounds",
               qkv(x1024)});
  e.push_back({"swiglu_1024", "silu(x wg) * (x wu) for 1024 rows, F = 11008 bf16: one dual GEMM",
               swiglu(x1024)});
  // The same at 8192 rows: compute-bound, a sustained tile walk of many rounds.
  Tensor x8192 = In({8192, 4096}, DType::kBF16, d);
  e.push_back({"qkv_8192",
               "q, k and v projections of 8192 rows (4096 x 4096, 1024, 1024 bf16): one "
               "compute-bound GEMM",
               qkv(x8192)});
  e.push_back({"swiglu_8192",
               "silu(x wg) * (x wu) for 8192 rows, F = 11008 bf16: one compute-bound dual GEMM",
               swiglu(x8192)});
  // A mixture-of-experts layer's eight expert GEMMs (gemm_group_bench's BM_Experts/1):
  // independent problems of their own rows, one grouped persistent kernel.
  std::vector<Tensor> experts;
  for (int64_t rows : {512, 4096, 1024, 2048, 768, 3072, 1536, 640}) {
    experts.push_back(matmul(In({rows, 2048}, DType::kBF16, d), In({2048, 1408}, DType::kBF16, d)));
  }
  e.push_back({"experts",
               "8 independent matmuls of 512 to 4096 rows by 2048 x 1408 bf16: one grouped GEMM",
               experts});
  Tensor big = In({1 << 28}, DType::kF32, d);
  e.push_back({"chain",
               "gelu(x * 1.5 + 0.25) * sigmoid(x) + x over 2^28 floats",
               {gelu(big * 1.5 + 0.25) * sigmoid(big) + big}});
  Tensor rows = In({16384, 8192}, DType::kBF16, d);
  e.push_back({"softmax", "softmax over 16384 x 8192 bf16", {softmax(rows)}});
  Tensor g = In({8192}, DType::kBF16, d), beta = In({8192}, DType::kBF16, d);
  e.push_back({"layer_norm", "layer_norm over 16384 x 8192 bf16", {layer_norm(rows, g, beta)}});
  e.push_back({"reductions",
               "sum(x), sum(x * x), max(x) of 2^28 floats in one pass",
               {sum(big), sum(big * big), max(big)}});
  std::vector<Tensor> updates;
  for (int i = 0; i < 64; ++i) {
    const int64_t n = int64_t{4096} << (i * 10 / 63);
    updates.push_back(In({n}, DType::kF32, d) - 0.01 * In({n}, DType::kF32, d));
  }
  e.push_back({"updates", "64 updates p - 0.01 * g, 4K to 4M elements", updates});
  Tensor in = In({512, 1024}, DType::kF32, d);
  Tensor h = gelu(linear(in, In({1024, 2048}, DType::kF32, d), zeros({2048}, DType::kF32, d)));
  e.push_back(
      {"mlp",
       "the demo's two-layer MLP and softmax",
       {softmax(linear(h, In({2048, 512}, DType::kF32, d), full({512}, 0.01, DType::kF32, d)))}});
  e.push_back({"argmax", "argmax over rows of 16384 x 8192 bf16", {argmax(rows, 1)}});
  Tensor logits = In({4096, 32000}, DType::kBF16, d), targets = In({4096, 1}, DType::kI64, d);
  e.push_back({"cross_entropy",
               "mean(logsumexp(logits) - gather(logits, target)) over 32000 bf16 classes",
               {mean(logsumexp(logits, {1}, true) - gather(logits, 1, targets))}});
  const Tensor picked =
      sum(where(eq(arange(32000, DType::kI64, d), targets), logits, 0.0), {1}, true);
  e.push_back({"cross_entropy_eq",
               "the same with the target's logit picked by comparing positions (where/eq)",
               {mean(logsumexp(logits, {1}, true) - picked)}});
  Tensor table = In({32000, 4096}, DType::kBF16, d), ids = In({8, 2048}, DType::kI64, d);
  Tensor positions = In({2048, 4096}, DType::kBF16, d);
  e.push_back({"embedding",
               "embedding(table, ids) * 64 + positions: 8 x 2048 tokens of 4096 bf16",
               {embedding(table, ids) * 64.0 + positions}});
  e.push_back({"cumsum",
               "cumsum over one line of 2^28 f32: chained tiles with a look-back",
               {cumsum(In({int64_t{1} << 28}, DType::kF32, d), 0)}});
  Tensor vocab = In({256, 131072}, DType::kF32, d);
  e.push_back(
      {"topk",
       "topk(x, 50) over 256 rows of 131072 f32: a sampled threshold, a filter and a choice "
       "(the parts' path for lines it leaves), the values",
       {topk(vocab, 50).first, topk(vocab, 50).second}});
  Tensor tall = In({16384, 8192}, DType::kF32, d);
  e.push_back({"column_sum",
               "sum(x, {0}) of 16384 x 8192 f32: a warp per 32 columns, the column split over "
               "threads and blocks",
               {sum(tall, {0})}});
  e.push_back({"column_softmax",
               "softmax(x, 0) of 16384 x 8192 f32: columns held on chip, each split over the "
               "blocks of a cluster",
               {softmax(tall, 0)}});
  // The axes still short of copy in bf16 (bench/RESULTS.md; docs/plans/bf16_axes.md).
  e.push_back({"column_softmax_bf16",
               "softmax(x, 0) of 16384 x 8192 bf16: pairs of columns staged in shared memory, "
               "64 columns a cluster of 16",
               {softmax(In({16384, 8192}, DType::kBF16, d), 0)}});
  Tensor stack = In({256, 512, 512}, DType::kBF16, d);
  e.push_back({"leading_softmax_bf16",
               "softmax(x, 0) of 256 x 512 x 512 bf16: short columns held in registers",
               {softmax(stack, 0)}});
  e.push_back({"middle_softmax_bf16",
               "softmax(x, 1) of 256 x 512 x 512 bf16: a middle axis, 32 parts a column",
               {softmax(stack, 1)}});
  e.push_back({"long_rows_bf16",
               "softmax over 64 rows of 131072 bf16: a cluster of blocks shares each row",
               {softmax(In({64, 131072}, DType::kBF16, d))}});
  e.push_back({"held_rows_bf16",
               "softmax over 1024 rows of 32000 bf16 (a vocabulary): a block per row, the row "
               "held in shared memory",
               {softmax(In({1024, 32000}, DType::kBF16, d))}});
  Tensor cube = In({64, 512, 4096}, DType::kBF16, d);
  e.push_back({"middle_mean",
               "mean(x, {1}) of 64 x 512 x 4096 bf16: a middle axis reduced",
               {mean(cube, {1})}});
  e.push_back({"transpose",
               "transpose(x) + 1 of 16384 x 8192 f32: tiles through shared memory, read along "
               "x's rows and written along the result's",
               {transpose(tall) + 1.0}});
  Tensor heads = In({8, 1024, 16, 64}, DType::kBF16, d);
  e.push_back({"permute",
               "permute(x, {0, 2, 3, 1}) * 2 of 8 x 1024 x 16 x 64 bf16: a 4-D permute that moves "
               "the contiguous axis",
               {permute(heads, {0, 2, 3, 1}) * 2.0}});
  e.push_back({"reverse_permute_bf16",
               "permute(x, {3, 2, 1, 0}) * 2 of 64 x 256 x 32 x 128 bf16: both tiled axes' rows "
               "2 MB apart",
               {permute(In({64, 256, 32, 128}, DType::kBF16, d), {3, 2, 1, 0}) * 2.0}});
  Tensor lines = In({16384, 4096}, DType::kF32, d);
  e.push_back({"sort_rows",
               "sort(x, 1) of 16384 rows of 4096 f32: one block sorts a row",
               {sort(lines, 1).first, sort(lines, 1).second}});
  Tensor grads = In({8 * 2048, 4096}, DType::kBF16, d);
  Tensor flat_ids = reshape(ids, {8 * 2048, 1});
  e.push_back({"scatter_add",
               "an embedding's gradient: scatter_add of 16384 token rows into a 32000 x 4096 table",
               {scatter_add(zeros({32000, 4096}, DType::kBF16, d), 0,
                            broadcast_to(flat_ids, {8 * 2048, 4096}), grads)}});
  // As bench/attention_bench.cc writes it: B = 8, H = 16, S = 4096, D = 128.
  Tensor q = In({8, 16, 4096, 128}, DType::kBF16, d), k = In({8, 16, 4096, 128}, DType::kBF16, d);
  Tensor v = In({8, 16, 4096, 128}, DType::kBF16, d);
  Tensor scores = matmul(q, transpose(k)) * (1 / std::sqrt(128.0));
  e.push_back({"attention",
               "matmul(softmax(q k^T / sqrt(128)), v), 8 x 16 heads of 4096 x 128 bf16: one "
               "flash-attention kernel",
               {matmul(softmax(scores, -1), v)}});
  Tensor causal = masked_fill(scores, triu(ones({4096, 4096}, DType::kBool, d), 1), -INFINITY);
  e.push_back({"attention_causal",
               "the same under a causal mask written with triu and masked_fill: key tiles past "
               "the diagonal skipped",
               {matmul(softmax(causal, -1), v)}});
  // One query a head of one sequence over `keys` keys of `kv_heads` K/V heads, each shared by
  // `group` query heads (the group axis as grouped-query attention writes it).
  auto decode = [&](int64_t kv_heads, int64_t group, int64_t keys) {
    const Tensor q = In({1, kv_heads, group, 1, 128}, DType::kBF16, d);
    const Tensor k = In({1, kv_heads, 1, keys, 128}, DType::kBF16, d);
    return matmul(softmax(matmul(q, transpose(k)) * (1 / std::sqrt(128.0)), -1),
                  In({1, kv_heads, 1, keys, 128}, DType::kBF16, d));
  };
  // Issue 14's decode shape: the keys split among the blocks.
  e.push_back({"attention_decode",
               "one query of 32 heads over 8 K/V heads of 16384 x 128 bf16: the keys split "
               "among the blocks, merged by the last share of each K/V head",
               {decode(8, 4, 16384)}});
  e.push_back({"attention_multi_query",
               "one query of 32 heads over one K/V head of 131072 x 128 bf16: the keys split "
               "132 ways, the shares merged by a second launch of a block a row",
               {decode(1, 32, 131072)}});
  Tensor wide_q = In({4, 16, 4096, 256}, DType::kBF16, d);
  Tensor wide_k = In({4, 16, 4096, 256}, DType::kBF16, d);
  e.push_back({"attention_256",
               "matmul(softmax(q k^T / 16), v), 4 x 16 heads of 4096 x 256 bf16: wider heads, "
               "narrower key tiles",
               {matmul(softmax(matmul(wide_q, transpose(wide_k)) * 0.0625, -1),
                       In({4, 16, 4096, 256}, DType::kBF16, d))}});
  return e;
}

}  // namespace tessel::tools
