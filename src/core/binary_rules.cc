// The binary ops' own rules (see core/op_rules.h).
#include <string>

#include "core/dtype.h"
#include "core/error.h"
#include "core/op_rules.h"
#include "core/scalar.h"

namespace bcast {

namespace {

// sub: PyTorch's sub_check, before anything else.
void SubPreCheck(const OpArgs& a, const bc_tensor* /*out*/) {
  if (a.in[0]->dtype == BC_BOOL && a.in[1]->dtype == BC_BOOL)
    Fail(BC_ERR_DTYPE,
         "Subtraction, the `-` operator, with two bool tensors is not supported. Use the "
         "`^` or `logical_xor()` operator instead.");
  if (a.in[0]->dtype == BC_BOOL || a.in[1]->dtype == BC_BOOL)
    Fail(BC_ERR_DTYPE,
         "Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
         "trying to invert a mask, use the `~` or `logical_not()` operator instead.");
}

// add/sub's alpha as the kernel takes it: PyTorch's sub is add with -alpha,
// and an alpha of 0 is the integer 0 (a double alpha that is integral means
// an integer, as bcast's callers pass it), whose negation is +0, not -0; on
// half dtypes alpha is rounded to the half type first, as alpha.to<Half>()
// (through float32), whether the half kernel or float32 tiles compute the
// op. (SubAlphaF negates what it gets back.)
// The factor of `other` in PyTorch's add: alpha, or sub's -alpha, rounded
// to a half common dtype.
double AlphaFactor(const OpArgs& a, const Types& t) {
  double alpha = a.scalar == 0 ? 0.0 : (a.op == BC_SUB ? -a.scalar : a.scalar);
  if (IsHalf(t.common))
    alpha = t.common == BC_FLOAT16 ? Convert<float>(Convert<f16>(alpha))
                                   : Convert<float>(Convert<bf16>(alpha));
  return alpha;
}

double AlphaScalar(const OpArgs& a, const Types& t) {
  const double f = AlphaFactor(a, t);
  return a.op == BC_SUB ? -f : f;
}

// mul, div and trunc/floor division on half dtypes whose second operand is
// one value: PyTorch (TensorIterator's is_scalar(2), original_scalar_value)
// computes in float32 with that operand's own value, not rounded to the half
// type (f16 [3.] * 0.1 is 0.30005, not 0.29980), and without the half
// rounding of each division step.
int SecondIfOneValue(const OpArgs& a, const Types& t) {
  return IsOneValue(*a.in[1], t.common) ? 1 : -1;
}

// PyTorch's bfloat16 fmax/fmin return the second operand on ties (+0 and
// -0), its other dtypes (and bcast's kernels) the first: the operands swap.
bool SwapOnBfloat16(const OpArgs& /*a*/, const Types& t) { return t.common == BC_BFLOAT16; }

// pow with a number: pow(Tensor, Scalar)'s special exponents and pow(1,
// Tensor), PyTorch's own paths (core/scalar.cc).
bc_tensor* PowNumberPath(const OpArgs& a, bc_tensor* out, bool inplace) {
  if (!a.in[0]->wrapped_number && !a.in[1]->wrapped_number) return nullptr;
  return RunPowScalar(a, out, inplace);
}

constexpr OpRules kAdd = [] {
  OpRules r;
  r.kernel_scalar = AlphaScalar;
  r.half_alpha_factor = AlphaFactor;
  return r;
}();
constexpr OpRules kSub = [] {
  OpRules r = kAdd;
  r.pre_check = SubPreCheck;
  return r;
}();
constexpr OpRules kMulDiv = [] {
  OpRules r;
  r.half_number_operand = SecondIfOneValue;
  return r;
}();
constexpr OpRules kRoundingDiv = [] {  // trunc and floor division
  OpRules r = kMulDiv;
  r.half_steps = true;
  r.divides = true;
  return r;
}();
constexpr OpRules kRemainder = [] {  // remainder, fmod
  OpRules r;
  r.divides = true;
  return r;
}();
constexpr OpRules kFmaxFmin = [] {
  OpRules r;
  r.swaps_operands = SwapOnBfloat16;
  return r;
}();
constexpr OpRules kPow = [] {
  OpRules r;
  r.number_path = PowNumberPath;
  return r;
}();

}  // namespace

const OpRules* BinaryRules(int op) {
  switch (op) {
    case BC_ADD: return &kAdd;
    case BC_SUB: return &kSub;
    case BC_MUL:
    case BC_DIV: return &kMulDiv;
    case BC_DIV_TRUNC:
    case BC_DIV_FLOOR: return &kRoundingDiv;
    case BC_REMAINDER:
    case BC_FMOD: return &kRemainder;
    case BC_FMAX:
    case BC_FMIN: return &kFmaxFmin;
    case BC_POW: return &kPow;
    default: return nullptr;
  }
}

}  // namespace bcast
