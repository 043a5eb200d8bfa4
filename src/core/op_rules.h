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
};

// The rules of a kernel op (bc_op values, ternary ops, kCopy).
const OpRules& RulesOf(int op);

// Each family's rules (null: none for that op).
const OpRules* BinaryRules(int op);
const OpRules* TernaryRules(int op);
const OpRules* CopyRules();

}  // namespace bcast

#endif  // BCAST_CORE_OP_RULES_H_
