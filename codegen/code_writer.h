// An indenting writer for generated CUDA: KernelSource text that people read and diff.
#ifndef TESSEL_CODEGEN_CODE_WRITER_H_
#define TESSEL_CODEGEN_CODE_WRITER_H_

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"

namespace tessel::codegen {

class CodeWriter {
 public:
  // One line at the current indentation.
  template <typename... Pieces>
  void Line(const Pieces&... pieces) {
    text_.append(static_cast<size_t>(indent_) * 2, ' ');
    absl::StrAppend(&text_, pieces..., "\n");
  }
  void Blank() { text_ += "\n"; }
  // Text as is (the prelude): no indentation added.
  void Raw(absl::string_view text) { absl::StrAppend(&text_, text); }
  // The lines `inner` wrote, at this writer's indentation: code written after code that
  // must precede it (values hoisted out of a loop while its body is written).
  void Append(const CodeWriter& inner) {
    for (absl::string_view line : absl::StrSplit(inner.text(), '\n', absl::SkipEmpty())) {
      Line(line);
    }
  }

  // `header {` ... `}` with the body indented, closed when the scope ends.
  class Scope {
   public:
    Scope(CodeWriter* w, std::string close) : w_(w), close_(std::move(close)) { ++w_->indent_; }
    // The same with the body's first line.
    Scope(CodeWriter* w, std::string close, absl::string_view first) : Scope(w, std::move(close)) {
      w_->Line(first);
    }
    ~Scope() {
      --w_->indent_;
      w_->Line(close_);
    }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    CodeWriter* w_;
    std::string close_;
  };
  template <typename... Pieces>
  [[nodiscard]] Scope Block(const Pieces&... header) {
    Line(header..., " {");
    return Scope(this, "}");
  }

  const std::string& text() const { return text_; }

 private:
  std::string text_;
  int indent_ = 0;
};

}  // namespace tessel::codegen

#endif  // TESSEL_CODEGEN_CODE_WRITER_H_
