// ComputeDag::ParseCanonical: reads the text written by dag_text.cc back.
// The grammar, one op per line:
//
//   op      := NAME '=' 'placeholder' DTYPE '[' ints ']' attrs? NEWLINE
//            | NAME '=' 'compute' DTYPE axes (('sum' | 'max') axes)? attrs? ':' expr NEWLINE
//   axes    := '[' (NAME '=' INT (',' NAME '=' INT)*)? ']'
//   attrs   := '{' (STRING '=' STRING (',' STRING '=' STRING)*)? '}'
//   expr    := '(' expr INFIX expr ')' | '!' expr | '-'? literal | NAME '[' exprs ']'
//            | FUNCTION '(' exprs ')' | NAME
//
// Expressions are fully parenthesized by the printer (see ToString(Expr)), so
// the parser needs no precedence rules.
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/base/absl_compat.h"
#include "common/base/status_macros.h"
#include "common/ir/compute_dag.h"

namespace pruner {
namespace {

// ---- Lexing.

enum class TokenKind { kIdent, kNumber, kString, kPunct, kNewline, kEnd };

struct Token {
  TokenKind kind = TokenKind::kEnd;
  std::string text;  // identifier, number (with suffix), unescaped string, punctuation
  int line = 1;
  int column = 1;
};

absl::Status PositionError(int line, int column, absl::string_view message) {
  return absl::InvalidArgumentError(
      absl::StrFormat("canonical text, line %d, column %d: %s", line, column, message));
}

class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) {}

  absl::Status Tokenize(std::vector<Token>* tokens) {
    while (true) {
      SkipSpaces();
      Token token;
      token.line = line_;
      token.column = column_;
      if (pos_ == text_.size()) {
        tokens->push_back(token);
        return absl::OkStatus();
      }
      const char c = text_[pos_];
      if (c == '\n') {
        token.kind = TokenKind::kNewline;
        Advance(1);
      } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
        token.kind = TokenKind::kIdent;
        token.text = TakeWhile([](char ch) {
          return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '.';
        });
      } else if (std::isdigit(static_cast<unsigned char>(c))) {
        token.kind = TokenKind::kNumber;
        token.text = LexNumber();
      } else if (c == '"') {
        token.kind = TokenKind::kString;
        PRUNER_RETURN_IF_ERROR(LexString(&token.text));
      } else {
        token.kind = TokenKind::kPunct;
        static constexpr std::string_view kTwoChar[] = {"==", "!=", "<=", ">=", "&&", "||"};
        token.text = std::string(1, c);
        for (std::string_view two : kTwoChar) {
          if (text_.substr(pos_, 2) == two) token.text = std::string(two);
        }
        if (token.text.size() == 1 && std::string_view("=[](){},:+-*/<>!").find(c) ==
                                          std::string_view::npos) {
          return PositionError(line_, column_, absl::StrCat("unexpected character '",
                                                            std::string(1, c), "'"));
        }
        Advance(token.text.size());
      }
      tokens->push_back(std::move(token));
    }
  }

 private:
  void Advance(size_t n) {
    for (size_t i = 0; i < n && pos_ < text_.size(); ++i, ++pos_) {
      if (text_[pos_] == '\n') {
        ++line_;
        column_ = 1;
      } else {
        ++column_;
      }
    }
  }

  void SkipSpaces() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                   text_[pos_] == '\r')) {
      Advance(1);
    }
  }

  template <typename Pred>
  std::string TakeWhile(Pred pred) {
    const size_t start = pos_;
    while (pos_ < text_.size() && pred(text_[pos_])) Advance(1);
    return std::string(text_.substr(start, pos_ - start));
  }

  // digits ('.' digits?)? (('e'|'E') ('+'|'-')? digits)? suffix
  std::string LexNumber() {
    const size_t start = pos_;
    auto digits = [this] {
      while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
        Advance(1);
      }
    };
    digits();
    if (pos_ < text_.size() && text_[pos_] == '.') {
      Advance(1);
      digits();
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      size_t look = pos_ + 1;
      if (look < text_.size() && (text_[look] == '+' || text_[look] == '-')) ++look;
      if (look < text_.size() && std::isdigit(static_cast<unsigned char>(text_[look]))) {
        Advance(look - pos_);
        digits();
      }
    }
    while (pos_ < text_.size() && std::isalnum(static_cast<unsigned char>(text_[pos_]))) {
      Advance(1);
    }
    return std::string(text_.substr(start, pos_ - start));
  }

  absl::Status LexString(std::string* value) {
    const int line = line_, column = column_;
    Advance(1);  // opening quote
    while (pos_ < text_.size() && text_[pos_] != '"') {
      char c = text_[pos_];
      if (c == '\n') break;
      if (c != '\\') {
        value->push_back(c);
        Advance(1);
        continue;
      }
      if (pos_ + 1 >= text_.size()) break;
      const char escape = text_[pos_ + 1];
      Advance(2);
      switch (escape) {
        case '"': value->push_back('"'); break;
        case '\\': value->push_back('\\'); break;
        case 'n': value->push_back('\n'); break;
        case 't': value->push_back('\t'); break;
        case 'x': {
          unsigned int byte = 0;
          const std::string_view hex = text_.substr(pos_, 2);
          auto [ptr, ec] = std::from_chars(hex.data(), hex.data() + hex.size(), byte, 16);
          if (ec != std::errc() || ptr != hex.data() + 2) {
            return PositionError(line_, column_, "\\x needs two hex digits");
          }
          value->push_back(static_cast<char>(byte));
          Advance(2);
          break;
        }
        default:
          return PositionError(line_, column_ - 2,
                               absl::StrCat("unknown escape '\\", std::string(1, escape), "'"));
      }
    }
    if (pos_ >= text_.size() || text_[pos_] != '"') {
      return PositionError(line, column, "unterminated string");
    }
    Advance(1);
    return absl::OkStatus();
  }

  std::string_view text_;
  size_t pos_ = 0;
  int line_ = 1;
  int column_ = 1;
};

// ---- Parsing.

std::string Describe(const Token& t) {
  switch (t.kind) {
    case TokenKind::kEnd: return "end of text";
    case TokenKind::kNewline: return "end of line";
    case TokenKind::kString: return absl::StrCat("string \"", t.text, "\"");
    default: return absl::StrCat("'", t.text, "'");
  }
}

class Parser {
 public:
  explicit Parser(std::vector<Token> tokens) : tokens_(std::move(tokens)) {}

  absl::StatusOr<std::vector<OpRef>> ParseOps() {
    std::vector<OpRef> ops;
    SkipNewlines();
    while (Peek().kind != TokenKind::kEnd) {
      PRUNER_ASSIGN_OR_RETURN(OpRef op, ParseOp(static_cast<int>(ops.size())));
      ops.push_back(std::move(op));
      if (Peek().kind != TokenKind::kEnd && Peek().kind != TokenKind::kNewline) {
        return Unexpected("end of line");
      }
      SkipNewlines();
    }
    if (ops.empty()) return absl::InvalidArgumentError("canonical text: no ops");
    return ops;
  }

 private:
  const Token& Peek(int ahead = 0) const {
    const size_t i = std::min(next_ + ahead, tokens_.size() - 1);
    return tokens_[i];
  }
  const Token& Take() {
    const Token& t = Peek();
    if (next_ < tokens_.size() - 1) ++next_;
    return t;
  }
  bool IsPunct(absl::string_view p, int ahead = 0) const {
    return Peek(ahead).kind == TokenKind::kPunct && Peek(ahead).text == p;
  }
  void SkipNewlines() {
    while (Peek().kind == TokenKind::kNewline) Take();
  }

  absl::Status ErrorAt(const Token& t, absl::string_view message) const {
    return PositionError(t.line, t.column, message);
  }
  absl::Status Unexpected(absl::string_view expected) const {
    return ErrorAt(Peek(), absl::StrCat("expected ", expected, " but found ", Describe(Peek())));
  }
  absl::Status ExpectPunct(absl::string_view p) {
    if (!IsPunct(p)) return Unexpected(absl::StrCat("'", p, "'"));
    Take();
    return absl::OkStatus();
  }
  absl::StatusOr<std::string> ExpectIdent(absl::string_view what) {
    if (Peek().kind != TokenKind::kIdent) return Unexpected(what);
    return Take().text;
  }

  absl::StatusOr<int64_t> ParseInt64() {
    const Token& t = Peek();
    if (t.kind != TokenKind::kNumber) return Unexpected("an integer");
    int64_t v = 0;
    auto [ptr, ec] = std::from_chars(t.text.data(), t.text.data() + t.text.size(), v);
    if (ec != std::errc() || ptr != t.text.data() + t.text.size()) {
      return ErrorAt(t, absl::StrCat("'", t.text, "' is not an int64"));
    }
    Take();
    return v;
  }

  absl::StatusOr<DType> ParseDTypeName() {
    const Token& t = Peek();
    PRUNER_ASSIGN_OR_RETURN(std::string name, ExpectIdent("a dtype"));
    std::optional<DType> dtype = ParseDType(name);
    if (!dtype) return ErrorAt(t, absl::StrCat("unknown dtype '", name, "'"));
    return *dtype;
  }

  absl::StatusOr<std::vector<Axis>> ParseAxes() {
    std::vector<Axis> axes;
    PRUNER_RETURN_IF_ERROR(ExpectPunct("["));
    while (!IsPunct("]")) {
      if (!axes.empty()) {
        PRUNER_RETURN_IF_ERROR(ExpectPunct(","));
      }
      Axis axis;
      absl::StatusOr<std::string> name = ExpectIdent("an axis name");
      if (!name.ok()) return name.status();
      axis.name = *name;
      PRUNER_RETURN_IF_ERROR(ExpectPunct("="));
      absl::StatusOr<int64_t> extent = ParseInt64();
      if (!extent.ok()) return extent.status();
      axis.extent = *extent;
      axes.push_back(std::move(axis));
    }
    Take();
    return axes;
  }

  absl::Status ParseAttrs(std::map<std::string, std::string>* attrs) {
    Take();  // '{'
    while (!IsPunct("}")) {
      if (!attrs->empty()) {
        PRUNER_RETURN_IF_ERROR(ExpectPunct(","));
      }
      if (Peek().kind != TokenKind::kString) return Unexpected("an attribute key string");
      const Token& key = Take();
      PRUNER_RETURN_IF_ERROR(ExpectPunct("="));
      if (Peek().kind != TokenKind::kString) return Unexpected("an attribute value string");
      if (!attrs->emplace(key.text, Take().text).second) {
        return ErrorAt(key, absl::StrCat("duplicate attribute \"", key.text, "\""));
      }
    }
    Take();
    return absl::OkStatus();
  }

  absl::StatusOr<OpRef> ParseOp(int position) {
    auto op = std::make_shared<Op>();
    op->id = position;
    const Token& name_token = Peek();
    absl::StatusOr<std::string> name = ExpectIdent("a tensor name");
    if (!name.ok()) return name.status();
    op->name = *name;
    if (!tensors_.emplace(op->name, position).second) {
      return ErrorAt(name_token, absl::StrCat("tensor '", op->name, "' is defined twice"));
    }
    PRUNER_RETURN_IF_ERROR(ExpectPunct("="));
    const Token& kind_token = Peek();
    absl::StatusOr<std::string> kind = ExpectIdent("'placeholder' or 'compute'");
    if (!kind.ok()) return kind.status();
    absl::StatusOr<DType> dtype = ParseDTypeName();
    if (!dtype.ok()) return dtype.status();
    op->dtype = *dtype;
    if (*kind == "placeholder") {
      op->kind = OpKind::kPlaceholder;
      PRUNER_RETURN_IF_ERROR(ExpectPunct("["));
      while (!IsPunct("]")) {
        if (!op->shape.empty()) {
          PRUNER_RETURN_IF_ERROR(ExpectPunct(","));
        }
        PRUNER_ASSIGN_OR_RETURN(int64_t dim, ParseInt64());
        op->shape.push_back(dim);
      }
      Take();
      if (IsPunct("{")) {
        PRUNER_RETURN_IF_ERROR(ParseAttrs(&op->attrs));
      }
    } else if (*kind == "compute") {
      op->kind = OpKind::kCompute;
      absl::StatusOr<std::vector<Axis>> axes = ParseAxes();
      if (!axes.ok()) return axes.status();
      op->axes = *std::move(axes);
      for (const Axis& axis : op->axes) op->shape.push_back(axis.extent);
      if (Peek().kind == TokenKind::kIdent) {
        const Token& reduce_token = Take();
        if (reduce_token.text == "sum") {
          op->reduce = ReduceKind::kSum;
        } else if (reduce_token.text == "max") {
          op->reduce = ReduceKind::kMax;
        } else {
          return ErrorAt(reduce_token, absl::StrCat("unknown reduction '", reduce_token.text,
                                                    "'; expected sum or max"));
        }
        absl::StatusOr<std::vector<Axis>> reduce_axes = ParseAxes();
        if (!reduce_axes.ok()) return reduce_axes.status();
        op->reduce_axes = *std::move(reduce_axes);
      }
      if (IsPunct("{")) {
        PRUNER_RETURN_IF_ERROR(ParseAttrs(&op->attrs));
      }
      PRUNER_RETURN_IF_ERROR(ExpectPunct(":"));
      axes_ = op.get();
      absl::StatusOr<Expr> body = ParseExpr();
      axes_ = nullptr;
      if (!body.ok()) return body.status();
      op->body = *std::move(body);
    } else {
      return ErrorAt(kind_token,
                     absl::StrCat("expected 'placeholder' or 'compute' but found '", *kind, "'"));
    }
    ops_.push_back(op);
    return op;
  }

  absl::StatusOr<std::vector<Expr>> ParseExprList(absl::string_view close) {
    std::vector<Expr> args;
    while (!IsPunct(close)) {
      if (!args.empty()) {
        PRUNER_RETURN_IF_ERROR(ExpectPunct(","));
      }
      PRUNER_ASSIGN_OR_RETURN(Expr arg, ParseExpr());
      args.push_back(std::move(arg));
    }
    Take();
    return args;
  }

  // Records come from storage and the network: bound the recursion so that a
  // corrupt text cannot overflow the stack.
  static constexpr int kMaxDepth = 500;

  absl::StatusOr<Expr> ParseExpr() {
    if (depth_ >= kMaxDepth) {
      return ErrorAt(Peek(), absl::StrCat("expression nested deeper than ", kMaxDepth, " levels"));
    }
    ++depth_;
    absl::StatusOr<Expr> e = ParseExprAtDepth();
    --depth_;
    return e;
  }

  absl::StatusOr<Expr> ParseExprAtDepth() {
    const Token& t = Peek();
    if (IsPunct("(")) {
      Take();
      absl::StatusOr<Expr> lhs = ParseExpr();
      if (!lhs.ok()) return lhs.status();
      if (IsPunct(")")) {
        Take();
        return lhs;
      }
      const Token& op = Peek();
      if (op.kind != TokenKind::kPunct) return Unexpected("an operator");
      Take();
      PRUNER_ASSIGN_OR_RETURN(Expr rhs, ParseExpr());
      PRUNER_RETURN_IF_ERROR(ExpectPunct(")"));
      return MakeInfix(op, *std::move(lhs), std::move(rhs));
    }
    if (IsPunct("!")) {
      Take();
      PRUNER_ASSIGN_OR_RETURN(Expr operand, ParseExpr());
      return Not(std::move(operand));
    }
    if (IsPunct("-")) {
      Take();
      return ParseLiteral(t, /*negative=*/true);
    }
    if (t.kind == TokenKind::kNumber) return ParseLiteral(t, /*negative=*/false);
    if (t.kind != TokenKind::kIdent) return Unexpected("an expression");
    if (t.text == "true" || t.text == "false") {
      Take();
      return IntImm(t.text == "true", DType::kBool);
    }
    if (IsSpecialFloat(t.text)) return ParseLiteral(t, /*negative=*/false);
    if (IsPunct("[", 1)) return ParseRead();
    if (IsPunct("(", 1)) return ParseFunction();
    Take();
    for (int i = 0; axes_ != nullptr && i < axes_->num_axes(); ++i) {
      const int spatial = static_cast<int>(axes_->axes.size());
      const Axis& axis = i < spatial ? axes_->axes[i] : axes_->reduce_axes[i - spatial];
      if (axis.name == t.text) return Var(i, axis.name, DType::kInt64);
    }
    return ErrorAt(t, absl::StrCat("unknown axis '", t.text, "'"));
  }

  static bool IsSpecialFloat(std::string_view s) {
    return s == "inff" || s == "infh" || s == "nanf" || s == "nanh";
  }

  absl::StatusOr<Expr> MakeInfix(const Token& op, Expr a, Expr b) {
    static const std::map<std::string, BinaryOp> kArith = {
        {"+", BinaryOp::kAdd}, {"-", BinaryOp::kSub}, {"*", BinaryOp::kMul}, {"/", BinaryOp::kDiv}};
    static const std::map<std::string, CompareOp> kCompare = {
        {"<", CompareOp::kLT}, {"<=", CompareOp::kLE}, {">", CompareOp::kGT},
        {">=", CompareOp::kGE}, {"==", CompareOp::kEQ}, {"!=", CompareOp::kNE}};
    if (auto it = kArith.find(op.text); it != kArith.end()) return Binary(it->second, a, b);
    if (auto it = kCompare.find(op.text); it != kCompare.end()) return Compare(it->second, a, b);
    if (op.text == "&&") return And(a, b);
    if (op.text == "||") return Or(a, b);
    return ErrorAt(op, absl::StrCat("'", op.text, "' is not an infix operator"));
  }

  // A number token (or inff/nanf...) after an optional '-' that was taken.
  absl::StatusOr<Expr> ParseLiteral(const Token& start, bool negative) {
    const Token& t = Peek();
    if (t.kind != TokenKind::kNumber && !(t.kind == TokenKind::kIdent && IsSpecialFloat(t.text))) {
      return Unexpected("a number");
    }
    Take();
    std::string digits;
    std::string suffix;
    if (t.kind == TokenKind::kIdent) {  // inff, nanh, ...
      digits = t.text.substr(0, 3);
      suffix = t.text.substr(3);
    } else if (t.text.size() > 3 && t.text.compare(t.text.size() - 3, 3, "i32") == 0) {
      digits = t.text.substr(0, t.text.size() - 3);
      suffix = "i32";
    } else {
      size_t suffix_at = t.text.size();
      while (suffix_at > 0 && std::isalpha(static_cast<unsigned char>(t.text[suffix_at - 1]))) {
        --suffix_at;
      }
      digits = t.text.substr(0, suffix_at);
      suffix = t.text.substr(suffix_at);
    }
    if (negative) digits.insert(digits.begin(), '-');
    if (suffix.empty() && digits.find_first_of(".eE") != std::string::npos) {
      return ErrorAt(start, absl::StrCat("float literal '", digits,
                                         "' needs a dtype suffix (f or h)"));
    }
    if (suffix.empty() || suffix == "i32") {
      int64_t v = 0;
      auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
      if (ec != std::errc() || ptr != digits.data() + digits.size()) {
        return ErrorAt(start, absl::StrCat("'", digits, suffix, "' is not a valid integer literal"));
      }
      return IntImm(v, suffix.empty() ? DType::kInt64 : DType::kInt32);
    }
    if (suffix != "f" && suffix != "h") {
      return ErrorAt(t, absl::StrCat("unknown literal suffix '", suffix,
                                     "'; expected none or i32 (integers), f or h (floats)"));
    }
    const DType dtype = suffix == "f" ? DType::kFloat32 : DType::kFloat16;
    const std::string_view body = std::string_view(digits).substr(negative ? 1 : 0);
    double v = 0;
    if (body == "inf") {
      v = std::numeric_limits<double>::infinity();
    } else if (body == "nan") {
      v = std::numeric_limits<double>::quiet_NaN();
    } else {
      auto [ptr, ec] = std::from_chars(body.data(), body.data() + body.size(), v);
      if (ec != std::errc() || ptr != body.data() + body.size()) {
        return ErrorAt(start, absl::StrCat("'", t.text, "' is not a valid float literal"));
      }
    }
    return FloatImm(negative ? -v : v, dtype);
  }

  absl::StatusOr<Expr> ParseRead() {
    const Token& name = Take();
    Take();  // '['
    auto it = tensors_.find(name.text);
    if (it == tensors_.end() || it->second >= static_cast<int>(ops_.size())) {
      return ErrorAt(name, absl::StrCat("reads '", name.text, "', which is not defined above"));
    }
    PRUNER_ASSIGN_OR_RETURN(std::vector<Expr> indices, ParseExprList("]"));
    const Op& producer = *ops_[it->second];
    return Read(producer.id, producer.name, producer.dtype, std::move(indices));
  }

  absl::StatusOr<Expr> ParseFunction() {
    const Token& name = Take();
    Take();  // '('
    PRUNER_ASSIGN_OR_RETURN(std::vector<Expr> parsed, ParseExprList(")"));
    std::vector<Expr> args = std::move(parsed);
    auto need = [&](size_t n) -> absl::Status {
      if (args.size() == n) return absl::OkStatus();
      return ErrorAt(name, absl::StrCat(name.text, "() takes ", n, " arguments, got ", args.size()));
    };
    static const std::map<std::string, BinaryOp> kBinary = {{"floordiv", BinaryOp::kFloorDiv},
                                                             {"floormod", BinaryOp::kFloorMod},
                                                             {"min", BinaryOp::kMin},
                                                             {"max", BinaryOp::kMax}};
    if (auto it = kBinary.find(name.text); it != kBinary.end()) {
      PRUNER_RETURN_IF_ERROR(need(2));
      return Binary(it->second, args[0], args[1]);
    }
    if (name.text == "select") {
      PRUNER_RETURN_IF_ERROR(need(3));
      return Select(args[0], args[1], args[2]);
    }
    if (std::optional<DType> dtype = ParseDType(name.text)) {
      PRUNER_RETURN_IF_ERROR(need(1));
      return Cast(*dtype, args[0]);
    }
    for (CallFn fn : {CallFn::kExp, CallFn::kTanh, CallFn::kErf, CallFn::kSqrt, CallFn::kLog,
                      CallFn::kSigmoid, CallFn::kAbs}) {
      if (name.text == CallFnName(fn)) {
        PRUNER_RETURN_IF_ERROR(need(1));
        return Call(fn, std::move(args));
      }
    }
    return ErrorAt(name, absl::StrCat("unknown function '", name.text, "'"));
  }

  std::vector<Token> tokens_;
  size_t next_ = 0;
  std::map<std::string, int> tensors_;  // name -> position
  std::vector<OpRef> ops_;              // parsed so far
  const Op* axes_ = nullptr;            // op whose body is being parsed
  int depth_ = 0;                       // expression nesting
};

}  // namespace

absl::StatusOr<ComputeDag> ComputeDag::ParseCanonical(const std::string& text) {
  std::vector<Token> tokens;
  PRUNER_RETURN_IF_ERROR(Lexer(text).Tokenize(&tokens));
  PRUNER_ASSIGN_OR_RETURN(std::vector<OpRef> ops, Parser(std::move(tokens)).ParseOps());
  absl::StatusOr<ComputeDag> dag = Create(std::move(ops));
  if (!dag.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("canonical text describes an invalid DAG: ", dag.status().message()));
  }
  return dag;
}

}  // namespace pruner
