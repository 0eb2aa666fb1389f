#include "codegen/gemm_staging.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "codegen/kernel_common.h"

namespace tessel::codegen {
namespace {

int64_t Matrices(const GemmOperand& o) { return std::max<int64_t>(1, o.batch.numel()); }

int ElementBytes(const GemmOperand& o) { return static_cast<int>(DTypeSize(o.buffer->dtype())); }

// The copies' element type: bits, or floats where they are split.
std::string CopyType(const GemmProblem& p, const GemmOperand& o) {
  if (p.stage_splits_tf32) return "float";
  switch (ElementBytes(o)) {
    case 1:
      return "unsigned char";
    case 2:
      return "unsigned short";
    case 4:
      return "unsigned";
    default:
      return "unsigned long long";
  }
}

// Copies per operand: its TF32 part, and with three products (kHigh) the TF32 remainder
// next, as the following matrix.
int Parts(const GemmProblem& p) { return p.stage_splits_tf32 ? 2 : 1; }

// The remainder of float `x` past its TF32 part `big` (none past an infinity).
std::string Remainder(const std::string& x, const std::string& big) {
  return absl::StrCat("isfinite(", big, ") ? tessel_round_tf32(", x, " - ", big, ") : 0.0f");
}

// Opens the part of an entry that handles items [first, first + count) of index `i`, and
// names the item's index within the part.
CodeWriter::Scope OpenPart(CodeWriter& w, const std::string& i, int64_t first, int64_t count,
                           std::string* item) {
  *item = first == 0 ? i : absl::StrCat("(", i, " - ", first, ")");
  return w.Block(
      first == 0 ? absl::StrCat("if (", i, " < ", count, ")")
                 : absl::StrCat("if (", i, " >= ", first, " && ", i, " < ", first + count, ")"));
}

// One thread per 16 bytes of a padded row: `first` is the operand's first chunk index.
void EmitRowCopy(CodeWriter& w, const GemmProblem& p, const KernelSource& ks, const GemmOperand& o,
                 int64_t first, int64_t chunks) {
  const int lanes = std::max(1, 16 / ElementBytes(o));
  const int64_t per_row = o.pitch / lanes;
  const std::string type = CopyType(p, o);
  std::string chunk;
  auto part = OpenPart(w, "i", first, chunks, &chunk);
  w.Line("// ", &o == &p.a ? "A" : "B", ": rows of ", o.inner, " to rows of ", o.pitch);
  w.Line("const long long row = ", chunk, " / ", per_row, ", col = ", chunk, " % ", per_row, " * ",
         lanes, ";");
  w.Line("const ", type, "* from = (const ", type, "*)", PointerName(ks, o.buffer), " + row * ",
         o.inner, ";");
  if (Parts(p) == 1) {
    w.Line("tessel_vec<", type, ", ", lanes, "> v;");
    w.Line("#pragma unroll");
    w.Line("for (int j = 0; j < ", lanes, "; ++j) v.v[j] = col + j < ", o.inner, " ? ",
           "from[col + j] : 0;");
    w.Line("tessel_store_vec(", OperandPointer(ks, o, type), " + row * ", o.pitch, " + col, v);");
    return;
  }
  w.Line("tessel_vec<float, ", lanes, "> big, rest;");
  w.Line("#pragma unroll");
  {
    auto lane = w.Block("for (int j = 0; j < ", lanes, "; ++j)");
    w.Line("const float x = col + j < ", o.inner, " ? from[col + j] : 0.0f;");
    w.Line("big.v[j] = tessel_round_tf32(x);");
    w.Line("// Finite past the largest TF32 value: the part truncated, the rest finite.");
    w.Line(
        "if (isinf(big.v[j]) && isfinite(x)) big.v[j] = __uint_as_float(__float_as_uint(x) & "
        "0xffffe000u);");
    w.Line("rest.v[j] = ", Remainder("x", "big.v[j]"), ";");
  }
  w.Line("// Matrix m's part at copy 2m, its remainder at 2m + 1.");
  w.Line("float* to = ", OperandPointer(ks, o, type), " + (row / ", o.rows, " * ", 2 * o.rows,
         " + row % ", o.rows, ") * ", o.pitch, " + col;");
  w.Line("tessel_store_vec(to, big);");
  w.Line("tessel_store_vec(to + ", o.rows * o.pitch, ", rest);");
}

// One block per 32 x 32 tile of a matrix: read along the buffer's rows, written along the
// copy's (the buffer's columns), through a padded shared tile.
void EmitTileTranspose(CodeWriter& w, const GemmProblem& p, const KernelSource& ks,
                       const GemmOperand& o, int64_t first, int64_t tiles) {
  const int64_t src_rows = o.inner, src_cols = o.rows;  // the copy's rows are the columns
  const int64_t tiles_r = CeilDiv(src_rows, 32), tiles_c = CeilDiv(src_cols, 32);
  const std::string type = CopyType(p, o);
  std::string tile;
  auto part = OpenPart(w, "t", first, tiles, &tile);  // uniform in the block
  w.Line("// ", &o == &p.a ? "A" : "B", ": ", src_rows, " x ", src_cols, " to ", src_cols,
         " rows of ", o.pitch);
  w.Line("const long long matrix = ", tile, " / ", tiles_r * tiles_c, ";");
  w.Line("const int r0 = (int)(", tile, " % ", tiles_r * tiles_c, " / ", tiles_c,
         ") * 32, c0 = (int)(", tile, " % ", tiles_c, ") * 32;");
  w.Line("const ", type, "* from = (const ", type, "*)", PointerName(ks, o.buffer), " + matrix * ",
         src_rows * src_cols, ";");
  w.Line("for (int k = threadIdx.x / 32; k < 32; k += 8) {");
  w.Line("  const int r = r0 + k, c = c0 + threadIdx.x % 32;");
  w.Line("  tile[k][threadIdx.x % 32] = r < ", src_rows, " && c < ", src_cols,
         " ? from[(long long)r * ", src_cols, " + c] : 0;");
  w.Line("}");
  w.Line("__syncthreads();");
  w.Line(type, "* to = ", OperandPointer(ks, o, type), " + matrix * ",
         Parts(p) * src_cols * o.pitch, ";");
  auto rows = w.Block("for (int k = threadIdx.x / 32; k < 32; k += 8)");
  w.Line("const int c = c0 + k, r = r0 + threadIdx.x % 32;");
  auto inside = w.Block("if (c < ", src_cols, " && r < ", o.pitch, ")");
  w.Line("const ", type, " x = tile[threadIdx.x % 32][k];");
  if (Parts(p) == 1) {
    w.Line("to[(long long)c * ", o.pitch, " + r] = x;");
    return;
  }
  w.Line("float big = tessel_round_tf32(x);");
  w.Line("if (isinf(big) && isfinite(x)) big = __uint_as_float(__float_as_uint(x) & 0xffffe000u);");
  w.Line("to[(long long)c * ", o.pitch, " + r] = big;");
  w.Line("to[", src_cols * o.pitch, " + (long long)c * ", o.pitch,
         " + r] = ", Remainder("x", "big"), ";  // the remainders' matrix");
}

}  // namespace

void PlanOperandStaging(GemmProblem& p, StagingNeed need) {
  p.stage_splits_tf32 = need == StagingNeed::kTf32Split;
  int64_t offset = 0;
  for (GemmOperand* o : {&p.a, &p.b}) {
    const Shape& s = o->buffer->shape();
    const int64_t inner = s[s.rank() - 1], outer = s[s.rank() - 2];
    const int64_t per16 = std::max<int64_t>(1, 16 / ElementBytes(*o));
    // As stored, A is K-major ([m, k] rows) unless read transposed; B the other way round.
    const bool mn_major = o == &p.a ? o->transposed : !o->transposed;
    o->stage_transposed =
        need != StagingNeed::kRows && mn_major && !(need == StagingNeed::kKMajorA && o == &p.b);
    o->staged = p.stage_splits_tf32 || o->stage_transposed || inner % per16 != 0;
    o->rows = o->stage_transposed ? inner : outer;
    o->inner = o->stage_transposed ? outer : inner;
    o->pitch = o->staged ? CeilDiv(o->inner, per16) * per16 : inner;
    o->workspace_offset = o->staged ? offset : 0;
    if (o->staged) {
      offset += CeilDiv(Parts(p) * Matrices(*o) * o->rows * o->pitch * ElementBytes(*o), 256) * 256;
    }
  }
  p.staging_bytes = offset;
}

StagingNeed WgmmaStagingNeed(const GemmProblem& p) {
  if (p.a.buffer->dtype() != DType::kF32) return StagingNeed::kRows;
  return p.split_tf32 ? StagingNeed::kTf32Split : StagingNeed::kKMajor;
}

bool ReadsMnMajor(const GemmOperand& o, bool is_a) {
  return (is_a ? o.transposed : !o.transposed) != o.stage_transposed;
}

void EmitOperandStaging(CodeWriter& w, const GemmProblem& p, KernelSource* ks) {
  std::vector<const GemmOperand*> rows, tiles;
  for (const GemmOperand* o : {&p.a, &p.b}) {
    if (o->staged) (o->stage_transposed ? tiles : rows).push_back(o);
  }
  if (rows.empty() && tiles.empty()) return;
  ks->workspace_bytes = p.staging_bytes;
  w.Line("// Operands copied where the mainloop cannot read them as stored: rows padded to a");
  w.Line("// multiple of 16 bytes (zeros after the row)",
         p.stage_splits_tf32 ? ", K-major, as TF32 parts and TF32 remainders."
         : tiles.empty()     ? "."
                             : ", K-major.");
  if (!rows.empty()) {
    const std::string entry = absl::StrCat(kNamePlaceholder, "_stage");
    int64_t first = 0;
    {
      auto body = KernelBlock(w, "256", entry, *ks);
      w.Line(
          "const long long i = (long long)blockIdx.x * 256 + threadIdx.x;  // 16 bytes of a row");
      for (const GemmOperand* o : rows) {
        const int64_t chunks =
            Matrices(*o) * o->rows * (o->pitch / std::max(1, 16 / ElementBytes(*o)));
        EmitRowCopy(w, p, *ks, *o, first, chunks);
        first += chunks;
      }
    }
    Launch launch;
    launch.entry = entry;
    launch.grid = {CeilDiv(first, 256), 1, 1};
    ks->launches.push_back(launch);
  }
  if (!tiles.empty()) {
    const std::string entry = absl::StrCat(kNamePlaceholder, "_transpose");
    int64_t first = 0;
    {
      auto body = KernelBlock(w, "256", entry, *ks);
      w.Line("__shared__ ", CopyType(p, *tiles[0]), " tile[32][33];");
      w.Line("const long long t = blockIdx.x;  // a 32 x 32 tile");
      for (const GemmOperand* o : tiles) {
        const int64_t count = Matrices(*o) * CeilDiv(o->inner, 32) * CeilDiv(o->rows, 32);
        EmitTileTranspose(w, p, *ks, *o, first, count);
        first += count;
      }
    }
    Launch launch;
    launch.entry = entry;
    launch.grid = {first, 1, 1};
    ks->launches.push_back(launch);
  }
  w.Blank();
}

std::string OperandPointer(const KernelSource& ks, const GemmOperand& o, const std::string& type) {
  if (!o.staged) return absl::StrCat("(", type, "*)", PointerName(ks, o.buffer));
  return absl::StrCat("((", type, "*)ws + ", o.workspace_offset / ElementBytes(o), ")");
}

}  // namespace tessel::codegen
