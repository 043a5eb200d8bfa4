#include "core/op_info.h"

#include "core/op_rules.h"

namespace bcast {

namespace {

constexpr bool SameText(const char* a, const char* b) {
  return *a == *b && (*a == '\0' || SameText(a + 1, b + 1));
}

// The number of parameters in a params column: "" 0, "a=1, b=2" 2.
constexpr int CountParams(const char* p) {
  if (*p == '\0') return 0;
  int n = 1;
  for (; *p != '\0'; ++p) n += *p == ',';
  return n;
}

#define BCAST_OPERANDS(a, b, c) \
  { a, b, c }
constexpr OpInfo kInfo[kNumKernelOps] = {
#define BCAST_BINARY_OP(Id, value, name, promotion, dtypes, kernel, Functor, AlphaFunctor, doc) \
  {#name, promotion, dtypes, kernel, 2, !SameText(#AlphaFunctor, "NoAlpha"), {"self", "other", nullptr}},
#define BCAST_TERNARY_OP(Id, name, dtypes, kernel, Functor, operands, doc) \
  {#name, kPromote, dtypes, kernel, 3, false, operands},
#define BCAST_UNARY_OP(Id, value, name, promotion, dtypes, kernel, Functor, params, doc) \
  {#name, promotion, dtypes, kernel, 1, false, {"self", nullptr, nullptr}, CountParams(params)},
#include "op_table.def"
    {"copy", kPromote, kAnyDtype, "copy_", 1, false, {"src", nullptr, nullptr}},
    {"host loop", kPromote, kAnyDtype, "bc_iter", 3, false, {"input 0", "input 1", "input 2"}},
};
#undef BCAST_OPERANDS

}  // namespace

const OpInfo& InfoOf(int op) { return kInfo[op]; }

const OpRules& FamilyRules(int op) {
  static constexpr OpRules kNone{};
  if (op == kHostLoop) return kNone;
  const OpRules* r = op == kCopy          ? CopyRules()
                     : op < BC_OP_COUNT   ? BinaryRules(op)
                     : IsUnaryOp(op)      ? UnaryRules(op)
                                          : TernaryRules(op);
  return r != nullptr ? *r : kNone;
}

const OpRules* g_op_rules[kNumKernelOps];

namespace {

// Fills g_op_rules when the library loads (the rules themselves are
// constants, so this may run before any other initialiser).
struct FillRules {
  FillRules() {
    for (int op = 0; op < kNumKernelOps; ++op) g_op_rules[op] = &FamilyRules(op);
  }
} fill_rules;

}  // namespace

}  // namespace bcast
