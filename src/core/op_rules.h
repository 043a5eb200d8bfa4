// An op's own rules: what PyTorch's meta function or kernel does for that op
// alone, beyond the op table's promotion and dtype set. Each family's file
// defines its ops' rules as named functions (binary_rules.cc,
// ternary_rules.cc, copy_rules.cc), the way PyTorch's meta functions sit
// beside their op; the engine calls them through these hooks and tests no
// op by name. A null hook: the op has no such rule.
#ifndef BCAST_CORE_OP_RULES_H_
#define BCAST_CORE_OP_RULES_H_

#include "core/ops.h"
#include "core/types.h"
#include "kernels/kernels.h"

namespace bcast {

struct OpRules {
  // PyTorch's checks before its iterator is built, so before overlap and
  // shape errors (sub on bool, where's condition, lerp's dtypes).
  void (*pre_check)(const OpArgs& a, const bc_tensor* out) = nullptr;
  // The whole type resolution, when the op has its own (copy_: the
  // destination's dtype). Returns true when it filled `t`.
  bool (*resolve)(const OpArgs& a, const bc_tensor* out, Types* t) = nullptr;
  // The common dtype when it is not torch.result_type of the inputs; sets
  // *exact_out when out= must have that dtype exactly.
  bc_dtype (*common)(const OpArgs& a, bool* exact_out) = nullptr;
  // The op checks out='s dtype itself (in pre_check): no out-cast check.
  bool checks_out_dtype = false;
  // The text when the common dtype is outside the op's set, when PyTorch
  // names another kernel than the table's (lerp with a number weight).
  const char* (*kernel_name)(const OpArgs& a) = nullptr;
  // Range checks of the op's numbers (addcmul's value) on the common dtype,
  // after its dtype set is checked.
  void (*check_range)(const OpArgs& a, bc_dtype common) = nullptr;

  // What the kernel runs:
  // PyTorch's own path for a number operand (pow's special exponents):
  // the result, or nullptr when the general path runs.
  bc_tensor* (*number_path)(const OpArgs& a, bc_tensor* out, bool inplace) = nullptr;
  // Whether the result does not depend on the input's values (isnan of an
  // integer tensor): the executor then reads one element, as a stride-0
  // operand, not the whole (maybe transposed) input.
  bool (*constant_result)(const OpArgs& a) = nullptr;
  // The scalar the kernel takes when it is not the op's number as given
  // (add/sub: alpha negated and rounded as PyTorch does).
  double (*kernel_scalar)(const OpArgs& a, const Types& t) = nullptr;
  // A unary op's parameters as its kernel takes them (defaults resolved,
  // rounded as PyTorch rounds them): fills s[0..kMaxScalars).
  void (*kernel_params)(const OpArgs& a, const Types& t, double* s) = nullptr;
  // On half dtypes, the operand PyTorch reads as one number at its own
  // value, not rounded to the half type, or -1 (mul and division: a
  // one-value second operand; lerp: a number weight).
  int (*half_number_operand)(const OpArgs& a, const Types& t) = nullptr;
  // The kernel gets the first two operands swapped (bfloat16 fmax/fmin).
  bool (*swaps_operands)(const OpArgs& a, const Types& t) = nullptr;
  // Each step rounds to the half type (trunc/floor division): on half
  // dtypes the half kernel always runs.
  bool half_steps = false;
  // An integer division: a zero divisor is refused.
  bool divides = false;
  // The operand read as bool whatever the common dtype (where's
  // condition), or -1.
  int bool_operand = -1;
  // float16/bfloat16 with alpha: PyTorch's scalar loop rounds alpha*other
  // first on the layouts it does not vectorise (ops.cc, HalfAlphaScalarLoop);
  // this gives the factor of `other` there (sub's alpha negated), rounded
  // to the half type.
  double (*half_alpha_factor)(const OpArgs& a, const Types& t) = nullptr;
  // copy_: out = in0, moved as bits when the dtypes match; broadcasts into
  // the destination only.
  bool copies = false;
};

// Whether `b` is one value for a half op of common dtype `common`: one
// element of any dtype, or a view of the common dtype whose every dim of
// more than one element has stride 0 (PyTorch's TensorIterator::is_scalar).
bool IsOneValue(const bc_tensor& b, bc_dtype common);

// The rules of a kernel op (bc_op values, ternary and unary ops, kCopy, kHostLoop): looked up
// on every call's path, so a table filled when the library loads (a null
// entry, before that, asks the families).
const OpRules& FamilyRules(int op);
extern const OpRules* g_op_rules[kNumKernelOps];
inline const OpRules& RulesOf(int op) {
  const OpRules* r = g_op_rules[op];
  return r != nullptr ? *r : FamilyRules(op);
}

// Each family's rules (null: none for that op).
const OpRules* BinaryRules(int op);
const OpRules* TernaryRules(int op);
const OpRules* CopyRules();
const OpRules* UnaryRules(int op);  // op: the kernel op (UnaryKernelOp)

}  // namespace bcast

#endif  // BCAST_CORE_OP_RULES_H_
