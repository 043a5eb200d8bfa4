#include "core/expr.h"

#include <cstring>
#include <string>

#include "core/error.h"
#include "core/op_info.h"
#include "core/scalar.h"
#include "kernels/kernels.h"

namespace bcast {

struct ExprCache {};

Expr::Expr(size_t ninputs) : ninputs_(ninputs) {
  if (ninputs > kMaxExprNodes)
    Fail(BC_ERR_INVALID_ARGUMENT, "an expression takes at most " + std::to_string(kMaxExprNodes) + " inputs");
}

int32_t Expr::Add(const ExprNode& n) {
  if (nodes_.size() >= kMaxExprNodes)
    Fail(BC_ERR_INVALID_ARGUMENT, "an expression has at most " + std::to_string(kMaxExprNodes) + " nodes");
  nodes_.push_back(n);  // (std::bad_alloc becomes BC_ERR_OUT_OF_MEMORY at the API)
  std::lock_guard<std::mutex> lock(cache_mu_);
  cache_.reset();
  return static_cast<int32_t>(nodes_.size() - 1);
}

int32_t Expr::Input(int64_t index) {
  if (index < 0 || static_cast<uint64_t>(index) >= ninputs_)
    Fail(BC_ERR_INVALID_ARGUMENT, "input " + std::to_string(index) + " is out of range: the expression has " +
                                      std::to_string(ninputs_) + " inputs");
  ExprNode n;
  n.kind = ExprNode::kInput;
  n.index = static_cast<int32_t>(index);
  return Add(n);
}

int32_t Expr::Number(const bc_scalar& value) {
  CheckScalarKind(value, "value");
  ExprNode n;
  n.kind = ExprNode::kNumber;
  n.number = value;
  return Add(n);
}

namespace {

// The table op called `name` (KernelOp numbering), or -1.
int FindOp(const char* name) {
  for (int op = 0; op < kNumTableOps; ++op)
    if (std::strcmp(InfoOf(op).name, name) == 0) return op;
  return -1;
}

}  // namespace

int32_t Expr::Call(const char* name, const int32_t* args, size_t nargs) {
  if (name == nullptr) Fail(BC_ERR_INVALID_ARGUMENT, "op name is NULL");
  if (nargs > 0 && args == nullptr) Fail(BC_ERR_INVALID_ARGUMENT, "args is NULL");
  const int op = FindOp(name);
  if (op < 0) Fail(BC_ERR_INVALID_ARGUMENT, std::string("unknown op '") + name + "'");
  const OpInfo& info = InfoOf(op);
  for (size_t i = 0; i < nargs; ++i)
    if (args[i] < 0 || static_cast<size_t>(args[i]) >= nodes_.size())
      Fail(BC_ERR_INVALID_ARGUMENT, std::string(name) + ": operand " + std::to_string(i) + " is node " +
                                        std::to_string(args[i]) + ", which does not exist (the expression has " +
                                        std::to_string(nodes_.size()) + " nodes)");
  // Extra operands: a unary op's parameters, addcmul/addcdiv's value.
  const size_t extra = IsUnaryOp(op)                       ? static_cast<size_t>(info.nparams)
                       : (op == kAddcmul || op == kAddcdiv) ? 1
                                                            : 0;
  const size_t nin = static_cast<size_t>(info.nin);
  if (nargs < nin || nargs > nin + extra) {
    std::string want = std::to_string(nin);
    if (extra > 0) want += " to " + std::to_string(nin + extra);
    Fail(BC_ERR_INVALID_ARGUMENT, std::string(name) + " takes " + want + " operands, not " + std::to_string(nargs));
  }
  ExprNode n;
  n.kind = ExprNode::kOp;
  n.op = op;
  n.nargs = static_cast<int>(nin);
  for (size_t i = 0; i < nin; ++i) n.arg[i] = args[i];
  for (size_t k = nin; k < nargs; ++k) {
    const ExprNode& p = nodes_[static_cast<size_t>(args[k])];
    if (p.kind != ExprNode::kNumber)
      Fail(BC_ERR_INVALID_ARGUMENT, std::string(name) + ": operand " + std::to_string(k) +
                                        (IsUnaryOp(op) ? " is a parameter" : " is `value`") + " and must be a number");
    const double v = p.number.kind == BC_SCALAR_FLOAT ? p.number.v.f
                     : p.number.kind == BC_SCALAR_INT ? static_cast<double>(p.number.v.i)
                                                      : (p.number.v.b != 0 ? 1.0 : 0.0);
    if (IsUnaryOp(op)) {
      n.params[k - nin] = v;
      n.given |= 1u << (k - nin);
    } else {
      n.value = v;
    }
  }
  return Add(n);
}

}  // namespace bcast

namespace bcast {

Expr::~Expr() = default;

bc_tensor* Expr::Eval(const bc_ctx&, const bc_tensor* const*, size_t, bc_tensor*) {
  Fail(BC_ERR_INTERNAL, "not built yet");
}

}  // namespace bcast
