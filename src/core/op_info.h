// What the engine's semantic code knows of each op, from the op table
// (src/op_table.def): names, promotion, accepted dtypes, PyTorch's kernel
// name for its "not implemented" text and the operands' names.
#ifndef BCAST_CORE_OP_INFO_H_
#define BCAST_CORE_OP_INFO_H_

#include "kernels/kernels.h"

namespace bcast {

struct OpInfo {
  const char* name;         // bc_op_name(), PyTorch's name
  Promotion promotion;
  DtypeSet dtypes;
  const char* kernel;       // PyTorch's kernel name in "not implemented" texts
  int nin;                  // inputs
  bool alpha;               // takes alpha (add, sub)
  const char* operands[3];  // PyTorch's argument names, for warnings
  int nparams = 0;          // a unary op's parameters (bc_unary_params)
};

// The table entry of a kernel op (bc_op values, ternary ops, kCopy);
// op must be valid.
const OpInfo& InfoOf(int op);

}  // namespace bcast

#endif  // BCAST_CORE_OP_INFO_H_
