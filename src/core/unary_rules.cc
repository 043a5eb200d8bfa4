// The unary ops' own rules (see core/op_rules.h): PyTorch's pre-checks and
// texts, which out= dtypes each op takes, and its parameters' defaults and
// rounding.
#include <cfloat>
#include <cmath>
#include <cstring>
#include <string>

#include "core/dtype.h"
#include "core/error.h"
#include "core/op_info.h"
#include "core/op_rules.h"
#include "core/shape.h"
#include "core/types.h"

namespace bcast {

namespace {

bool Given(const OpArgs& a, int k) { return (a.given >> k) & 1u; }
double Param(const OpArgs& a, int k, double fallback) { return Given(a, k) ? a.params[k] : fallback; }

// A Python float as the kernel of dtype `d` holds it: rounded to the
// floating dtype (halves: to the half type, then exactly to float32).
double RoundTo(bc_dtype d, double v) {
  switch (d) {
    case BC_FLOAT16: return Convert<double>(Convert<f16>(v));
    case BC_BFLOAT16: return Convert<double>(Convert<bf16>(v));
    case BC_FLOAT32: return static_cast<float>(v);
    default: return v;
  }
}

double LargestFinite(bc_dtype d) {
  switch (d) {
    case BC_FLOAT16: return 65504.0;
    case BC_BFLOAT16: return 0x1.FEp127;
    case BC_FLOAT32: return FLT_MAX;
    default: return DBL_MAX;
  }
}

// TensorIterator::unary_op: out= must have the input's dtype
// ("Found dtype Long but expected Float").
bc_dtype SameDtype(const OpArgs& a, bool* exact_out) {
  *exact_out = true;
  return a.in[0]->dtype;
}

// square is pow(x, 2): bool gives int64 (result_type(bool, 2)), out= casts.
bc_dtype SquareCommon(const OpArgs& a, bool* /*exact_out*/) {
  return a.in[0]->dtype == BC_BOOL ? BC_INT64 : a.in[0]->dtype;
}

void NegPreCheck(const OpArgs& a, const bc_tensor* /*out*/) {
  if (a.in[0]->dtype == BC_BOOL)
    Fail(BC_ERR_DTYPE,
         "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
         "invert a mask, use the `~` or `logical_not()` operator instead.");
}

void ReluPreCheck(const OpArgs& a, const bc_tensor* /*out*/) {
  if (a.in[0]->dtype == BC_BOOL) Fail(BC_ERR_DTYPE, "Boolean inputs not supported for relu");
}

// F.hardtanh checks its bounds first, then hardtanh_out the dtype.
void HardtanhPreCheck(const OpArgs& a, const bc_tensor* /*out*/) {
  if (Param(a, 0, -1.0) > Param(a, 1, 1.0))
    Fail(BC_ERR_INVALID_ARGUMENT, "min_val cannot be greater than max_val");
  if (a.in[0]->dtype == BC_BOOL) Fail(BC_ERR_DTYPE, "Bool inputs not supported for hardtanh");
}

// Integers take the bounds truncated (PyTorch's toLong()), floating dtypes
// rounded to the dtype.
void HardtanhParams(const OpArgs& a, const Types& t, double* s) {
  for (int k = 0; k < 2; ++k) {
    const double v = Param(a, k, k == 0 ? -1.0 : 1.0);
    s[k] = IsFloating(t.common) ? RoundTo(t.common, v) : std::trunc(v);
  }
}

// hardtanh is clamp(x, min_val, max_val) with number bounds: on an integer
// dtype narrower than int64 a bound past the side it limits is an error
// (PyTorch's clamp_scalar text), past the other side it limits nothing; on
// floating dtypes the bounds must convert without overflow.
void HardtanhRange(const OpArgs& a, bc_dtype common) {
  for (int k = 0; k < 2; ++k) {
    const double v = Param(a, k, k == 0 ? -1.0 : 1.0);
    if (IsFloating(common)) {
      CheckScalarRange(common, v);
    } else if (common != BC_BOOL) {
      CheckScalarRange(BC_INT64, std::trunc(v));  // toLong()
      if (common == BC_INT64) continue;
      const int bits = 8 * static_cast<int>(DtypeSize(common));
      const int64_t mn = common == BC_UINT8 ? 0 : -(int64_t{1} << (bits - 1));
      const int64_t mx = common == BC_UINT8 ? 255 : (int64_t{1} << (bits - 1)) - 1;
      const double t = std::trunc(v);
      if ((k == 0 && t > static_cast<double>(mx)) || (k == 1 && t < static_cast<double>(mn)))
        Fail(BC_ERR_INVALID_ARGUMENT,
             std::string("Clamp ") + (k == 0 ? "min" : "max") + " value " +
                 std::to_string(static_cast<int64_t>(t)) +
                 " is outside the representable range of " + DtypeName(common));
    }
  }
}

void NanToNumPreCheck(const OpArgs& a, const bc_tensor* out) {
  if (out != nullptr && out->dtype != a.in[0]->dtype)
    Fail(BC_ERR_DTYPE, std::string("nan_to_num: dtype of out: ") + DtypeName(out->dtype) +
                           " should be same as input: " + DtypeName(a.in[0]->dtype));
}

// None: the dtype's largest and lowest finite values.
void NanToNumParams(const OpArgs& a, const Types& t, double* s) {
  if (!IsFloating(t.common)) return;  // integers and bool are copied
  const double big = LargestFinite(t.common);
  s[0] = RoundTo(t.common, Param(a, 0, 0.0));
  s[1] = RoundTo(t.common, Param(a, 1, big));
  s[2] = RoundTo(t.common, Param(a, 2, -big));
}

// logit(eps): with eps given and not negative, x is clamped to [eps, 1 - eps]
// (s[0] = 1, the bounds in s[1], s[2]); otherwise not.
void LogitParams(const OpArgs& a, const Types& t, double* s) {
  const bool clamp = Given(a, 0) && a.params[0] >= 0;
  s[0] = clamp ? 1 : 0;
  if (clamp) {
    s[1] = RoundTo(t.common, a.params[0]);
    s[2] = RoundTo(t.common, 1.0 - a.params[0]);
  }
}

void GeluPreCheck(const OpArgs& a, const bc_tensor* /*out*/) {
  const double v = Param(a, 0, 0);
  if (v != 0 && v != 1)
    Fail(BC_ERR_INVALID_ARGUMENT, "approximate argument must be either none or tanh.");
}

void GeluParams(const OpArgs& a, const Types& /*t*/, double* s) { s[0] = Param(a, 0, 0); }

void SoftplusParams(const OpArgs& a, const Types& /*t*/, double* s) {
  s[0] = Param(a, 0, 1.0);
  s[1] = Param(a, 1, 20.0);
}

void EluParams(const OpArgs& a, const Types& /*t*/, double* s) { s[0] = Param(a, 0, 1.0); }

// leaky_relu's slope in the kernel's type (float32 for halves, as PyTorch's
// opmath).
void LeakyReluParams(const OpArgs& a, const Types& /*t*/, double* s) { s[0] = Param(a, 0, 0.01); }

// isposinf, isneginf and signbit take only a bool out= (so do isnan, isinf
// and isfinite, which PyTorch gives no out= at all).
void BoolOutPreCheck(const OpArgs& a, const bc_tensor* out) {
  if (out != nullptr && out->dtype != BC_BOOL)
    Fail(BC_ERR_DTYPE, std::string(InfoOf(a.op).name) + " does not support non-boolean outputs.");
}

// isnan, isinf, isposinf, isneginf, isfinite and signbit of an integer or
// bool tensor are constants (signbit: of an unsigned one): PyTorch returns
// zeros_like (ones for isfinite) without reading it, and so does bcast for
// the allocating form. Returns nullptr when the kernel must run.
bool IsConstantPredicate(const OpArgs& a) {
  const bc_dtype d = a.in[0]->dtype;
  if (IsFloating(d)) return false;
  return a.op != UnaryKernelOp(BC_SIGNBIT) || d == BC_BOOL || d == BC_UINT8;
}
// With out=, the kernel runs (after every check of out=) on one element of
// x (constant_result).
bc_tensor* ConstantPredicate(const OpArgs& a, bc_tensor* out, bool /*inplace*/) {
  const bc_tensor& x = *a.in[0];
  if (out != nullptr || !IsConstantPredicate(a)) return nullptr;
  bc_tensor* r = NewTensor(BC_BOOL, ShapeOf(x));
  std::memset(r->data, a.op == UnaryKernelOp(BC_ISFINITE) ? 1 : 0,
              static_cast<size_t>(Numel(*r)));
  return r;
}

constexpr OpRules SameDtypeRules(void (*pre)(const OpArgs&, const bc_tensor*) = nullptr,
                                 void (*params)(const OpArgs&, const Types&, double*) = nullptr) {
  OpRules r;
  r.common = SameDtype;
  r.pre_check = pre;
  r.kernel_params = params;
  return r;
}

constexpr OpRules kSameDtype = SameDtypeRules();
constexpr OpRules kNeg = SameDtypeRules(NegPreCheck);
constexpr OpRules kRelu = SameDtypeRules(ReluPreCheck);
constexpr OpRules kHardtanh = [] {
  OpRules r = SameDtypeRules(HardtanhPreCheck, HardtanhParams);
  r.check_range = HardtanhRange;
  return r;
}();
constexpr OpRules kGelu = SameDtypeRules(GeluPreCheck, GeluParams);
constexpr OpRules kSoftplus = SameDtypeRules(nullptr, SoftplusParams);
constexpr OpRules kElu = SameDtypeRules(nullptr, EluParams);
constexpr OpRules kLeakyRelu = SameDtypeRules(nullptr, LeakyReluParams);
constexpr OpRules kSquare = [] {
  OpRules r;
  r.common = SquareCommon;
  return r;
}();
constexpr OpRules kNanToNum = [] {
  OpRules r;
  r.pre_check = NanToNumPreCheck;
  r.checks_out_dtype = true;
  r.kernel_params = NanToNumParams;
  return r;
}();
constexpr OpRules kLogit = [] {
  OpRules r;
  r.kernel_params = LogitParams;
  return r;
}();
constexpr OpRules kBoolOut = [] {
  OpRules r;
  r.pre_check = BoolOutPreCheck;
  r.checks_out_dtype = true;
  r.number_path = ConstantPredicate;
  r.constant_result = IsConstantPredicate;
  return r;
}();

}  // namespace

const OpRules* UnaryRules(int op) {
  switch (op - kFirstUnary) {
    case BC_NEG: return &kNeg;
    case BC_RELU: return &kRelu;
    case BC_HARDTANH: return &kHardtanh;
    case BC_GELU: return &kGelu;
    case BC_SOFTPLUS: return &kSoftplus;
    case BC_ELU: return &kElu;
    case BC_LEAKY_RELU: return &kLeakyRelu;
    case BC_SQUARE: return &kSquare;
    case BC_NAN_TO_NUM: return &kNanToNum;
    case BC_LOGIT: return &kLogit;
    case BC_ABS:
    case BC_SIGN:
    case BC_FLOOR:
    case BC_CEIL:
    case BC_ROUND:
    case BC_TRUNC:
    case BC_FRAC:
    case BC_BITWISE_NOT:
    case BC_SILU:
    case BC_MISH:
    case BC_HARDSIGMOID:
    case BC_HARDSWISH: return &kSameDtype;
    case BC_ISNAN:
    case BC_ISINF:
    case BC_ISPOSINF:
    case BC_ISNEGINF:
    case BC_ISFINITE:
    case BC_SIGNBIT: return &kBoolOut;
    default: return nullptr;
  }
}

}  // namespace bcast
