// The reductions' own rules, as PyTorch's meta functions and kernels give
// them: which dims, which dtypes (with PyTorch's texts), which out= dtypes,
// and what each op makes of its accumulators. The executor
// (src/core/reduce.cc) names no op.
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "core/context.h"
#include "core/dtype.h"
#include "core/error.h"
#include "core/reduce.h"
#include "kernels/kernels.h"

namespace bcast {

namespace {

struct ReduceInfo {
  const char* name;
  DtypeSet dtypes;
  ReduceResult result;
};

constexpr ReduceInfo kReduceInfo[] = {
#define BCAST_REDUCE_OP(Id, value, name, dtypes, result, doc) {#name, dtypes, result},
#include "op_table.def"
};
static_assert(sizeof kReduceInfo / sizeof kReduceInfo[0] == BC_REDUCE_OP_COUNT,
              "one row per bc_reduce_op");

constexpr bool InValueOrder() {
  int v = 0;
#define BCAST_REDUCE_OP(Id, value, name, dtypes, result, doc) \
  if (value != v++) return false;
#include "op_table.def"
  return true;
}
static_assert(InValueOrder(), "BCAST_REDUCE_OP rows must be in value order");

std::string Name(const ReduceArgs& a) { return kReduceInfo[a.op].name; }

[[noreturn]] void FailOutDtype(bc_dtype want, bc_dtype got) {
  Fail(BC_ERR_DTYPE, std::string("Expected out tensor to have dtype ") + CppTypeName(want) +
                         ", but got " + CppTypeName(got) + " instead");
}

// out= takes any dtype the result casts to (mean, var, std).
void CheckCast(bc_dtype result, const bc_tensor* out) {
  if (out != nullptr && !CanCast(result, out->dtype))
    Fail(BC_ERR_DTYPE, std::string("result type ") + DtypeName(result) +
                           " can't be cast to the desired output type " + DtypeName(out->dtype));
}

// sum, nansum, prod: dtype=, else out='s dtype, else integers and bool give
// int64 (at::native's get_dtype_from_result / infer_dtype_from_optional).
ReduceTypes SumTypes(const ReduceArgs& a, const bc_tensor* out) {
  // nansum of an integer, bool or empty tensor is PyTorch's sum, with its
  // texts; nansum's own checks apply to the others.
  const bool nansum_kernel = a.op == BC_NANSUM && IsFloating(a.x->dtype) && Numel(*a.x) > 0;
  bc_dtype c;
  if (a.has_dtype) {
    c = a.dtype;
    if (out != nullptr && out->dtype != c) {
      if (nansum_kernel)
        Fail(BC_ERR_DTYPE, std::string("nansum: provided dtype must match dtype of result. Got ") +
                               DtypeName(out->dtype) + " and " + DtypeName(c) + ".");
      FailOutDtype(c, out->dtype);
    }
  } else if (out != nullptr) {
    c = out->dtype;
    // nansum of floats runs nansum's kernel on out's dtype: no integers.
    if (nansum_kernel && !IsFloating(c))
      Fail(BC_ERR_DTYPE, std::string("\"nansum_cpu\" not implemented for '") + DtypeName(c) + "'");
  } else {
    c = IsFloating(a.x->dtype) ? a.x->dtype : BC_INT64;
  }
  return {c, c};
}

// What PyTorch checks before the dims: the input dtype of mean, nanmean,
// var and std, argmax's bool, any/all's out= dtype.
void FloatInputCheck(const ReduceArgs& a, const bc_tensor* out) {
  const std::string name = Name(a);
  if (a.op == BC_NANMEAN && !IsFloating(a.x->dtype)) {
    if (out != nullptr)  // nanmean.out's own check, before nansum's
      Fail(BC_ERR_DTYPE, "nanmean(): integral types and 'Bool' are not supported for nanmean, even for empty "
                         "tensors.");
    Fail(BC_ERR_DTYPE, "nanmean(): expected input to have floating point or complex dtype but got " +
                           std::string(DtypeName(a.x->dtype)));
  }
  if ((a.op == BC_MEAN || a.op == BC_NANMEAN) && a.has_dtype && !IsFloating(a.dtype))
    Fail(BC_ERR_DTYPE, name + "(): could not infer output dtype. Optional dtype must be either a "
                              "floating point or complex dtype. Got: " + DtypeName(a.dtype));
  if ((a.op == BC_MEAN || a.op == BC_NANMEAN) && !a.has_dtype && !IsFloating(a.x->dtype))
    Fail(BC_ERR_DTYPE, name + "(): could not infer output dtype. Input dtype must be either a "
                              "floating point or complex dtype. Got: " + DtypeName(a.x->dtype));
  if ((a.op == BC_VAR || a.op == BC_STD) && !IsFloating(a.x->dtype))
    Fail(BC_ERR_DTYPE, "std and var only support floating point and complex dtypes");
}

ReduceTypes MeanTypes(const ReduceArgs& a, const bc_tensor* out) {
  const bc_dtype c = a.has_dtype ? a.dtype : a.x->dtype;
  if (a.has_dtype && out != nullptr && out->dtype != c) {
    if (a.op == BC_NANMEAN)  // nanmean is nansum(dtype=) / count
      Fail(BC_ERR_DTYPE, std::string("nansum: provided dtype must match dtype of result. Got ") +
                             DtypeName(out->dtype) + " and " + DtypeName(c) + ".");
    FailOutDtype(c, out->dtype);
  }
  // nanmean is nansum / count: nansum's kernel refuses an integer out=.
  if (a.op == BC_NANMEAN && out != nullptr && !IsFloating(out->dtype))
    Fail(BC_ERR_DTYPE, std::string("\"nansum_cpu\" not implemented for '") + DtypeName(out->dtype) + "'");
  // mean into an integer out= divides an integer sum by a Python float:
  // PyTorch's text names that result type, Float.
  if (out != nullptr && !IsFloating(out->dtype))
    Fail(BC_ERR_DTYPE, std::string("result type Float can't be cast to the desired output type ") +
                           DtypeName(out->dtype));
  return {out != nullptr ? out->dtype : c, out != nullptr ? out->dtype : c};
}

ReduceTypes KeepTypes(const ReduceArgs& a, const bc_tensor* out) {
  if (out != nullptr && out->dtype != a.x->dtype)
    Fail(BC_ERR_DTYPE, std::string("Expected the dtype for input and out to match, but got ") +
                           DtypeName(a.x->dtype) + " for input's dtype and " + DtypeName(out->dtype) +
                           " for out's dtype.");
  return {a.x->dtype, a.x->dtype};
}

ReduceTypes ArgTypes(const ReduceArgs& a, const bc_tensor* out) {
  if (out != nullptr && out->dtype != BC_INT64) FailOutDtype(BC_INT64, out->dtype);
  return {a.x->dtype, BC_INT64};
}

void AnyAllOutCheck(const ReduceArgs& a, const bc_tensor* out) {
  if (out != nullptr && out->dtype != BC_BOOL && out->dtype != BC_UINT8)
    Fail(BC_ERR_DTYPE, Name(a) + " only supports bool tensor for result, got: " + DtypeName(out->dtype));
}

// A uint8 result (uint8 input, or a uint8 out=) reads the input as uint8
// (PyTorch converts it first: any(0.5) into uint8 is 0).
ReduceTypes AnyAllTypes(const ReduceArgs& a, const bc_tensor* out) {
  const bc_dtype r = out != nullptr ? out->dtype : a.x->dtype == BC_UINT8 ? BC_UINT8 : BC_BOOL;
  return {r == BC_UINT8 ? BC_UINT8 : a.x->dtype, r};
}

ReduceTypes CountTypes(const ReduceArgs& a, const bc_tensor* out) {
  if (out != nullptr && out->dtype != BC_INT64) FailOutDtype(BC_INT64, out->dtype);
  return {a.x->dtype, BC_INT64};
}

ReduceTypes VarTypes(const ReduceArgs& a, const bc_tensor* out) {
  CheckCast(a.x->dtype, out);
  const bc_dtype r = out != nullptr ? out->dtype : a.x->dtype;
  return {IsFloating(r) ? r : a.x->dtype, r};
}

ReduceTypes LogsumexpTypes(const ReduceArgs& a, const bc_tensor* out) {
  if (out != nullptr && !IsFloating(out->dtype))
    Fail(BC_ERR_DTYPE, std::string("logsumexp(): Expected floating point type for result tensor, but got: ") +
                           DtypeName(out->dtype));
  const bc_dtype c = out != nullptr ? out->dtype : IsFloating(a.x->dtype) ? a.x->dtype : BC_FLOAT32;
  return {c, c};
}

// ---- what the accumulators give ---------------------------------------------

double SumOf(const ReduceAcc& acc) { return acc.s + acc.c; }

bool FinishSum(const ReduceArgs&, const ReduceAcc& f, const ReduceAcc&, int64_t, bc_dtype c,
               double* d, int64_t* i) {
  if (!IsFloating(c)) return *i = f.i, false;
  return *d = SumOf(f), true;
}
bool FinishProd(const ReduceArgs&, const ReduceAcc& f, const ReduceAcc&, int64_t, bc_dtype c,
                double* d, int64_t* i) {
  if (!IsFloating(c)) return *i = f.i, false;
  return *d = f.s, true;
}
bool FinishMean(const ReduceArgs&, const ReduceAcc& f, const ReduceAcc&, int64_t n, bc_dtype,
                double* d, int64_t*) {
  return *d = SumOf(f) / static_cast<double>(n), true;
}
bool FinishNanMean(const ReduceArgs&, const ReduceAcc& f, const ReduceAcc& s, int64_t, bc_dtype,
                   double* d, int64_t*) {
  return *d = SumOf(f) / static_cast<double>(s.i), true;
}
bool FinishKey(const ReduceArgs&, const ReduceAcc& f, const ReduceAcc&, int64_t, bc_dtype c,
               double* d, int64_t* i) {
  if (!IsFloating(c)) return *i = f.i, false;
  return *d = KeyToDouble(f.i, c), true;
}
bool FinishIndex(const ReduceArgs&, const ReduceAcc& f, const ReduceAcc&, int64_t, bc_dtype,
                 double*, int64_t* i) {
  return *i = f.j, false;
}
bool FinishAny(const ReduceArgs&, const ReduceAcc& f, const ReduceAcc&, int64_t, bc_dtype,
               double*, int64_t* i) {
  return *i = f.i != 0, false;
}
bool FinishAll(const ReduceArgs&, const ReduceAcc& f, const ReduceAcc&, int64_t n, bc_dtype,
               double*, int64_t* i) {
  return *i = f.i == n, false;
}
bool FinishCount(const ReduceArgs&, const ReduceAcc& f, const ReduceAcc&, int64_t, bc_dtype,
                 double*, int64_t* i) {
  return *i = f.i, false;
}
double Correction(const ReduceArgs& a) { return a.has_correction ? a.correction : 1.0; }
// The divisor is max(0, N - correction), as PyTorch's var.
double VarOf(const ReduceArgs& a, const ReduceAcc& dev, int64_t n) {
  if (n == 0) return std::numeric_limits<double>::quiet_NaN();  // the mean of nothing is NaN
  const double dof = static_cast<double>(n) - Correction(a);
  return SumOf(dev) / (dof > 0 ? dof : 0.0);
}
bool FinishVar(const ReduceArgs& a, const ReduceAcc&, const ReduceAcc& s, int64_t n, bc_dtype,
               double* d, int64_t*) {
  return *d = VarOf(a, s, n), true;
}
bool FinishStd(const ReduceArgs& a, const ReduceAcc&, const ReduceAcc& s, int64_t n, bc_dtype,
               double* d, int64_t*) {
  return *d = std::sqrt(VarOf(a, s, n)), true;
}
// nanmean keeps its first pass's sum for the end (the second pass counts).
double SumCenter(const ReduceAcc& f, int64_t, bc_dtype) { return SumOf(f); }
double MeanCenter(const ReduceAcc& f, int64_t n, bc_dtype) { return SumOf(f) / static_cast<double>(n); }
// PyTorch's logsumexp: an infinite max is replaced by 0.
double MaxCenter(const ReduceAcc& f, int64_t n, bc_dtype c) {
  if (n == 0) return 0.0;  // the max of nothing is -inf
  const double m = KeyToDouble(f.i, c);
  return std::isinf(m) ? 0.0 : m;
}
// Two-pass ops get the first pass's center (or sum) as first.s.
bool FinishLogsumexp(const ReduceArgs&, const ReduceAcc& f, const ReduceAcc& s, int64_t, bc_dtype,
                     double* d, int64_t*) {
  return *d = ReduceLog(SumOf(s)) + f.s, true;
}

// One output's finish (the functions above) over a run of outputs.
using FinishOne = bool (*)(const ReduceArgs&, const ReduceAcc&, const ReduceAcc&, int64_t, bc_dtype, double*,
                           int64_t*);
template <FinishOne F>
void Each(const ReduceArgs& a, const ReduceAcc* first, const ReduceAcc* second, int64_t count, int64_t n,
          bc_dtype c, double* f, int64_t* i, char* is_float) {
  // Each output's value goes to f[k] or i[k] as is_float[k] says; the
  // other is left as it was (StoreValues reads the one it names).
  const ReduceAcc none;
  for (int64_t k = 0; k < count; ++k)
    is_float[k] = F(a, first[k], second != nullptr ? second[k] : none, n, c, &f[k], &i[k]);
}

}  // namespace

const char* ReduceOpName(int op) {
  return op >= 0 && op < BC_REDUCE_OP_COUNT ? kReduceInfo[op].name : "unknown";
}

uint64_t ReduceDimMask(const char* name, const bc_tensor& x, const int64_t* dims, size_t ndims) {
  (void)name;
  if (ndims > BC_MAX_DIMS)
    Fail(BC_ERR_INVALID_ARGUMENT, "at most " + std::to_string(BC_MAX_DIMS) + " dims, got " +
                                      std::to_string(ndims));
  if (ndims > 0 && dims == nullptr) Fail(BC_ERR_INVALID_ARGUMENT, "dims is NULL");
  const int64_t n = x.ndim == 0 ? 1 : x.ndim;  // a 0-dim tensor takes dim 0 or -1
  if (ndims == 0) return x.ndim == 0 ? 0 : (~uint64_t{0} >> (64 - x.ndim));
  uint64_t mask = 0;
  for (size_t k = 0; k < ndims; ++k) {
    const int64_t d = dims[k];
    if (d < -n || d >= n)
      Fail(BC_ERR_INVALID_ARGUMENT, "Dimension out of range (expected to be in range of [" +
                                        std::to_string(-n) + ", " + std::to_string(n - 1) +
                                        "], but got " + std::to_string(d) + ")");
    const int64_t w = d < 0 ? d + n : d;
    if (mask >> w & 1)
      Fail(BC_ERR_INVALID_ARGUMENT, "dim " + std::to_string(w) + " appears multiple times in the list of dims");
    mask |= uint64_t{1} << w;
  }
  return x.ndim == 0 ? 0 : mask;
}

void ReducePreCheck(const ReduceArgs& a, const bc_tensor* out) {
  const std::string name = Name(a);
  const bool arg = a.op == BC_ARGMAX || a.op == BC_ARGMIN;
  if (arg && a.ndims > 1)
    Fail(BC_ERR_INVALID_ARGUMENT, name + "(): takes one dim, or every dim (dims NULL), not " +
                                      std::to_string(a.ndims));
  const bool takes_dtype = kReduceInfo[a.op].result == kReduceSum || a.op == BC_MEAN || a.op == BC_NANMEAN;
  if (a.has_dtype && !takes_dtype)
    Fail(BC_ERR_INVALID_ARGUMENT, name + "() takes no dtype argument");
  if (a.has_dtype && !ValidDtype(a.dtype_raw))
    Fail(BC_ERR_INVALID_ARGUMENT, "unknown dtype " + std::to_string(a.dtype_raw));
  if (a.has_correction && a.op != BC_VAR && a.op != BC_STD)
    Fail(BC_ERR_INVALID_ARGUMENT, name + "() takes no correction argument");
  FloatInputCheck(a, out);
  if ((a.op == BC_ARGMAX || a.op == BC_ARGMIN) && a.x->dtype == BC_BOOL)
    Fail(BC_ERR_DTYPE, Name(a) + "(): does not support bool input");
  if (a.op == BC_ANY || a.op == BC_ALL) AnyAllOutCheck(a, out);
  if (a.op == BC_AMAX || a.op == BC_AMIN) {
    KeepTypes(a, out);  // before the dims, unlike argmax's
    // PyTorch's zero-numel check takes the dims in order, each wrapped as
    // it comes: an empty dim is reported before a later dim out of range.
    if (Numel(*a.x) == 0 && a.x->ndim > 0) {
      for (size_t k = 0; k < a.ndims && a.dims != nullptr; ++k) {
        const int64_t n = a.x->ndim, d = a.dims[k];
        if (d < -n || d >= n) break;  // ReduceDimMask reports it
        if (a.x->shape[d < 0 ? d + n : d] == 0)
          Fail(BC_ERR_INVALID_ARGUMENT, name + "(): Expected reduction dim " + std::to_string(d) +
                                            " to have non-zero size.");
      }
    }
  }
}

ReduceTypes ResolveReduce(const ReduceArgs& a, uint64_t /*mask*/, const bc_tensor* out) {
  const std::string name = Name(a);
  // amax/amin/argmax/argmin have no identity: an empty reduced dim is refused.
  const bool needs_values = a.op == BC_AMAX || a.op == BC_AMIN || a.op == BC_ARGMAX || a.op == BC_ARGMIN;
  if (needs_values && Numel(*a.x) == 0) {
    if (a.ndims == 0)
      Fail(BC_ERR_INVALID_ARGUMENT,
           name + "(): Expected reduction dim to be specified for input.numel() == 0." +
               (a.op == BC_AMAX || a.op == BC_AMIN ? " Specify the reduction dim with the 'dim' argument." : ""));
    // amax/amin report the dim as the caller gave it (-1 stays -1),
    // argmax/argmin wrapped.
    const bool as_given = a.op == BC_AMAX || a.op == BC_AMIN;
    for (size_t k = 0; k < a.ndims; ++k) {
      const int64_t w = a.dims[k] < 0 ? a.dims[k] + a.x->ndim : a.dims[k];
      if (a.x->ndim > 0 && a.x->shape[w] == 0)
        Fail(BC_ERR_INVALID_ARGUMENT, name + "(): Expected reduction dim " + std::to_string(as_given ? a.dims[k] : w) +
                                          " to have non-zero size.");
    }
  }
  ReduceTypes t{};
  switch (a.op) {
    case BC_SUM: case BC_NANSUM: case BC_PROD: t = SumTypes(a, out); break;
    case BC_MEAN: case BC_NANMEAN: t = MeanTypes(a, out); break;
    case BC_AMAX: case BC_AMIN: t = KeepTypes(a, out); break;
    case BC_ARGMAX: case BC_ARGMIN: t = ArgTypes(a, out); break;
    case BC_ANY: case BC_ALL: t = AnyAllTypes(a, out); break;
    case BC_COUNT_NONZERO: t = CountTypes(a, out); break;
    case BC_VAR: case BC_STD: t = VarTypes(a, out); break;
    case BC_LOGSUMEXP: t = LogsumexpTypes(a, out); break;
    default: Fail(BC_ERR_INVALID_ARGUMENT, "unknown reduce op " + std::to_string(a.op));
  }
  return t;
}

void ReduceWarnings(const ReduceArgs& a, int64_t factor) {
  if ((a.op == BC_VAR || a.op == BC_STD) && static_cast<double>(factor) - Correction(a) <= 0) {
    Warn(*a.ctx, Name(a) + "(): degrees of freedom is <= 0. Correction should be strictly less than the "
                           "reduction factor (input numel divided by output numel).");
  }
}

bool ReduceIndexesFlat(const ReduceArgs& a) {
  return (a.op == BC_ARGMAX || a.op == BC_ARGMIN) && a.ndims == 0;
}

bool ReduceZeroesNans(const ReduceArgs& a, const ReduceTypes& t) {
  // nansum(x, dtype=int): NaN counts as 0 before the conversion.
  return a.op == BC_NANSUM && IsFloating(a.x->dtype) && !IsFloating(t.compute);
}

ReduceRecipe RecipeOf(const ReduceArgs& a) {
  switch (a.op) {
    case BC_SUM: return {kRSum, kRNumKinds, Each<FinishSum>, nullptr};
    case BC_NANSUM: return {kRNanSum, kRNumKinds, Each<FinishSum>, nullptr};
    case BC_PROD: return {kRProd, kRNumKinds, Each<FinishProd>, nullptr};
    case BC_MEAN: return {kRSum, kRNumKinds, Each<FinishMean>, nullptr};
    case BC_NANMEAN: return {kRNanSum, kRCountNotNan, Each<FinishNanMean>, SumCenter};
    case BC_AMAX: return {kRMax, kRNumKinds, Each<FinishKey>, nullptr, true};
    case BC_AMIN: return {kRMin, kRNumKinds, Each<FinishKey>, nullptr, true};
    case BC_ARGMAX: return {kRArgMax, kRNumKinds, Each<FinishIndex>, nullptr};
    case BC_ARGMIN: return {kRArgMin, kRNumKinds, Each<FinishIndex>, nullptr};
    case BC_ANY: return {kRCountNonzero, kRNumKinds, Each<FinishAny>, nullptr};
    case BC_ALL: return {kRCountNonzero, kRNumKinds, Each<FinishAll>, nullptr};
    case BC_COUNT_NONZERO: return {kRCountNonzero, kRNumKinds, Each<FinishCount>, nullptr};
    case BC_VAR: return {kRSum, kRSumSqDev, Each<FinishVar>, MeanCenter};
    case BC_STD: return {kRSum, kRSumSqDev, Each<FinishStd>, MeanCenter};
    case BC_LOGSUMEXP: return {kRMax, kRSumExp, Each<FinishLogsumexp>, MaxCenter};
  }
  return {};
}


}  // namespace bcast
