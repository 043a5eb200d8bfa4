// Fused expressions (bc_expr): a graph of elementwise ops over broadcast
// inputs, evaluated tile by tile so that intermediates stay in cache. Each
// node runs the eager op on its tile (core/ops.cc), so the result is the
// eager chain's, bit for bit (docs/expressions.md).
#ifndef BCAST_CORE_EXPR_H_
#define BCAST_CORE_EXPR_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "bcast/bcast.h"
#include "core/context.h"

namespace bcast {

// Nodes are numbered in the order they are added; operands come before the
// nodes that use them, and the last node is the expression's value.
struct ExprNode {
  enum Kind { kInput, kNumber, kOp };
  Kind kind = kInput;
  int32_t index = 0;  // kInput: which input
  bc_scalar number{};  // kNumber: a wrapped number, as PyTorch wraps a Python number
  int op = 0;          // kOp: a table op (KernelOp numbering: binary, ternary, unary)
  int nargs = 0;       // kOp: operand nodes
  int32_t arg[3] = {-1, -1, -1};
  double value = 1;    // addcmul/addcdiv's `value`
  double params[3] = {0, 0, 0};  // a unary op's parameters, bit k of `given` set when given
  unsigned given = 0;
};

struct ExprCache;

class Expr {
 public:
  explicit Expr(size_t ninputs);
  ~Expr();
  Expr(const Expr&) = delete;
  Expr& operator=(const Expr&) = delete;

  // Builders: each returns the new node's number, or throws Error
  // (BC_ERR_INVALID_ARGUMENT) naming what is wrong; nothing is added then.
  int32_t Input(int64_t index);
  int32_t Number(const bc_scalar& value);
  // An op of the table by its name (bc_op_name, bc_unary_op_name, or a
  // ternary: where, clamp, lerp, addcmul, addcdiv) on operand nodes. Unary
  // ops with parameters take them as trailing number nodes (hardtanh(x, -2,
  // 2)); addcmul and addcdiv take `value` as an optional fourth number node.
  int32_t Call(const char* name, const int32_t* args, size_t nargs);

  size_t ninputs() const { return ninputs_; }
  const std::vector<ExprNode>& nodes() const { return nodes_; }

  // Evaluates the last node on `inputs` (ninputs of them) into `out`, or
  // into a new tensor when out is null (returned). Throws Error.
  bc_tensor* Eval(const bc_ctx& ctx, const bc_tensor* const* inputs, size_t ninputs, bc_tensor* out);

 private:
  int32_t Add(const ExprNode& n);
  size_t ninputs_;
  std::vector<ExprNode> nodes_;
  // What the last evaluation's checks found, for evaluations on the same
  // shapes and dtypes.
  std::mutex cache_mu_;
  std::shared_ptr<const ExprCache> cache_;
};

// The most nodes an expression may have.
constexpr size_t kMaxExprNodes = 1 << 16;

// Parses `text` (docs/expressions.md) into a new expression whose input i is
// called names[i]. Throws Error(BC_ERR_INVALID_ARGUMENT) whose message gives
// the position: "at column N: ...", N counted in bytes from 1.
std::unique_ptr<Expr> ParseExpr(const char* text, const char* const* names, size_t nnames);

}  // namespace bcast

#endif  // BCAST_CORE_EXPR_H_
