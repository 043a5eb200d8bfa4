// One benchmark case, written as a one-line spec that the Google Benchmark
// suite, the comparison driver and compare.py (for PyTorch and NumPy) all
// read the same way, so that every library runs exactly the same operands:
//
//   op=add dtype=f32 mode=out a=4096x4096 b=4096x4096:T
//
// op      a bc_op name (add, mul, div, pow, lt, ...) or where, addcmul,
//         addcdiv, clamp, lerp.
// dtype   f32, f64, i32, bf16 (also f16, i64, i8, u8, i16): the dtype of
//         every operand except where's condition, which is bool.
// mode    alloc (a fresh result each call), out (into a preallocated
//         result) or inplace (into the first value operand).
// value   the scalar of addcmul/addcdiv (default 0.5).
// a= b= c=  the operands in the op's order (where: cond, a, b; addcmul:
//         self, t1, t2; clamp: x, lo, hi). A shape is sizes joined by 'x';
//         "s" is a 0-dim tensor. A suffix picks the layout: ":T" stores
//         the operand transposed (all dims reversed), ":S" takes every
//         other element of the last dim of a buffer twice as wide.
//
// Bytes per call = bytes of every input as stored once (a broadcast
// operand is read once, not once per use) + bytes of the result; in place,
// self counts as read and as written.
#ifndef BCAST_BENCH_BENCH_CASE_H
#define BCAST_BENCH_BENCH_CASE_H

#include <bcast/bcast.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace bcbench {

struct TensorFree {
  void operator()(bc_tensor* t) const { bc_tensor_free(t); }
};
using Tensor = std::unique_ptr<bc_tensor, TensorFree>;

enum class Mode { kAlloc, kOut, kInplace };
enum class Layout { kContiguous, kTransposed, kSliced };

struct OperandSpec {
  std::vector<int64_t> shape;
  Layout layout = Layout::kContiguous;
};

struct CaseSpec {
  std::string op;
  bc_dtype dtype = BC_FLOAT32;
  Mode mode = Mode::kOut;
  double value = 0.5;
  std::vector<OperandSpec> operands;
};

inline bool ParseDtype(const std::string& s, bc_dtype* out) {
  static const struct {
    const char* name;
    bc_dtype dtype;
  } kNames[] = {{"f32", BC_FLOAT32}, {"f64", BC_FLOAT64}, {"i32", BC_INT32}, {"bf16", BC_BFLOAT16},
                {"f16", BC_FLOAT16}, {"i64", BC_INT64},   {"i16", BC_INT16}, {"i8", BC_INT8},
                {"u8", BC_UINT8},    {"bool", BC_BOOL}};
  for (const auto& n : kNames) {
    if (s == n.name) {
      *out = n.dtype;
      return true;
    }
  }
  return false;
}

inline bool IsFloating(bc_dtype d) {
  return d == BC_FLOAT16 || d == BC_BFLOAT16 || d == BC_FLOAT32 || d == BC_FLOAT64;
}

inline int OperandCount(const std::string& op) {
  if (op == "where" || op == "addcmul" || op == "addcdiv" || op == "clamp" || op == "lerp")
    return 3;
  return 2;
}

// The bc_op named `name`, or -1.
inline int BinaryOp(const std::string& name) {
  for (int i = 0; i < BC_OP_COUNT; ++i)
    if (name == bc_op_name(static_cast<bc_op>(i))) return i;
  return -1;
}

inline OperandSpec ParseOperand(const std::string& text) {
  OperandSpec o;
  std::string dims = text;
  const size_t colon = text.find(':');
  if (colon != std::string::npos) {
    const std::string suffix = text.substr(colon + 1);
    dims = text.substr(0, colon);
    if (suffix == "T") o.layout = Layout::kTransposed;
    else if (suffix == "S") o.layout = Layout::kSliced;
    else throw std::invalid_argument("unknown layout suffix ':" + suffix + "'");
  }
  if (dims != "s") {
    std::stringstream ss(dims);
    std::string item;
    while (std::getline(ss, item, 'x')) {
      char* end = nullptr;
      const long long v = std::strtoll(item.c_str(), &end, 10);
      if (item.empty() || *end != '\0' || v < 0) throw std::invalid_argument("bad shape '" + dims + "'");
      o.shape.push_back(v);
    }
  }
  if (o.layout == Layout::kSliced && o.shape.empty())
    throw std::invalid_argument("a 0-dim operand cannot be sliced");
  return o;
}

inline CaseSpec ParseCase(const std::string& line) {
  CaseSpec c;
  std::stringstream ss(line);
  std::string tok;
  while (ss >> tok) {
    const size_t eq = tok.find('=');
    if (eq == std::string::npos) throw std::invalid_argument("expected key=value, got '" + tok + "'");
    const std::string key = tok.substr(0, eq), val = tok.substr(eq + 1);
    if (key == "op") {
      c.op = val;
    } else if (key == "dtype") {
      if (!ParseDtype(val, &c.dtype)) throw std::invalid_argument("unknown dtype '" + val + "'");
    } else if (key == "mode") {
      if (val == "alloc") c.mode = Mode::kAlloc;
      else if (val == "out") c.mode = Mode::kOut;
      else if (val == "inplace") c.mode = Mode::kInplace;
      else throw std::invalid_argument("unknown mode '" + val + "'");
    } else if (key == "value") {
      c.value = std::strtod(val.c_str(), nullptr);
    } else if (key == "a" || key == "b" || key == "c") {
      const size_t i = static_cast<size_t>(key[0] - 'a');
      if (c.operands.size() <= i) c.operands.resize(i + 1);
      c.operands[i] = ParseOperand(val);
    }  // Other keys (case names, notes) belong to the callers.
  }
  if (c.op.empty()) throw std::invalid_argument("missing op=");
  if (OperandCount(c.op) == 2 && BinaryOp(c.op) < 0)
    throw std::invalid_argument("unknown op '" + c.op + "'");
  if (static_cast<int>(c.operands.size()) != OperandCount(c.op))
    throw std::invalid_argument("op " + c.op + " takes " + std::to_string(OperandCount(c.op)) +
                                " operands (a=, b=" + (OperandCount(c.op) == 3 ? ", c=)" : ")"));
  return c;
}

// Deterministic values that keep every op finite: floats in [0.5, 1.5),
// integers in [1, 3], conditions about half true.
inline void Fill(bc_dtype dtype, void* data, size_t count, uint64_t seed) {
  uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
  auto next = [&s] {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint32_t>(s >> 33);
  };
  for (size_t i = 0; i < count; ++i) {
    const uint32_t r = next();
    const float f = 0.5f + static_cast<float>(r & 0xFFFFFF) / 16777216.0f;
    switch (dtype) {
      case BC_FLOAT32: static_cast<float*>(data)[i] = f; break;
      case BC_FLOAT64: static_cast<double*>(data)[i] = f; break;
      case BC_BFLOAT16:
      case BC_FLOAT16: {
        uint32_t bits;
        std::memcpy(&bits, &f, 4);
        // bf16: the float truncated to its upper half; f16: a half in [0.5, 2).
        static_cast<uint16_t*>(data)[i] =
            dtype == BC_BFLOAT16 ? static_cast<uint16_t>(bits >> 16)
                                 : static_cast<uint16_t>(0x3800 + (r & 0x3FF) + ((r >> 10) & 1) * 0x400);
        break;
      }
      case BC_INT32: static_cast<int32_t*>(data)[i] = static_cast<int32_t>(1 + r % 3); break;
      case BC_INT64: static_cast<int64_t*>(data)[i] = 1 + r % 3; break;
      case BC_INT16: static_cast<int16_t*>(data)[i] = static_cast<int16_t>(1 + r % 3); break;
      case BC_INT8: static_cast<int8_t*>(data)[i] = static_cast<int8_t>(1 + r % 3); break;
      case BC_UINT8: static_cast<uint8_t*>(data)[i] = static_cast<uint8_t>(1 + r % 3); break;
      case BC_BOOL: static_cast<uint8_t*>(data)[i] = static_cast<uint8_t>(r & 1); break;
    }
  }
}

inline int64_t Numel(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

inline void Check(bc_status st, const char* what) {
  if (st != BC_OK)
    throw std::runtime_error(std::string(what) + ": " + bc_status_string(st) + ": " + bc_last_error());
}

// A buffer of `dtype` filled with Fill() (or ones, if `ones`) and viewed
// with the operand's layout.
inline Tensor MakeOperand(const OperandSpec& o, bc_dtype dtype, uint64_t seed, bool ones = false) {
  const size_t nd = o.shape.size();
  std::vector<int64_t> stored = o.shape;
  if (o.layout == Layout::kSliced) stored.back() *= 2;
  if (o.layout == Layout::kTransposed) stored.assign(o.shape.rbegin(), o.shape.rend());
  std::vector<int64_t> row_major(nd);
  for (size_t i = nd, s = 1; i-- > 0;) {
    row_major[i] = static_cast<int64_t>(s);
    s *= static_cast<size_t>(stored[i]);
  }
  std::vector<int64_t> strides = row_major;
  if (o.layout == Layout::kSliced) strides.back() = 2;
  if (o.layout == Layout::kTransposed) strides.assign(row_major.rbegin(), row_major.rend());
  const int64_t storage = Numel(stored);
  const size_t esize = bc_dtype_size(dtype);
  const size_t nbytes = static_cast<size_t>(storage) * esize;
  // The storage comes from bcast's own allocator, as a user's tensors would
  // (large ones start on 2 MiB and are advised for huge pages; see
  // NewTensor). The view below keeps it alive through its deleter.
  bc_tensor* flat_storage = nullptr;
  Check(bc_tensor_empty(dtype, &storage, 1, &flat_storage), "bc_tensor_empty");
  void* data = bc_tensor_data(flat_storage);
  Fill(dtype, data, static_cast<size_t>(storage), seed);
  if (ones) {
    bc_tensor* one = nullptr;
    const double v = 1.0;
    Check(bc_tensor_from_data(BC_FLOAT64, nullptr, 0, &v, &one), "bc_tensor_from_data");
    Tensor holder(one);
    bc_tensor* flat = nullptr;
    const int64_t n = storage;
    Check(bc_tensor_wrap(dtype, &n, nullptr, 1, data, static_cast<size_t>(storage) * bc_dtype_size(dtype),
                         nullptr, nullptr, &flat),
          "bc_tensor_wrap");
    Tensor flat_holder(flat);
    Check(bc_copy_(flat, one), "bc_copy_");
  }
  bc_tensor* t = nullptr;
  const bc_status st = bc_tensor_wrap(dtype, o.shape.data(), strides.data(), nd, data, nbytes,
                                      [](void*, void* owner) { bc_tensor_free(static_cast<bc_tensor*>(owner)); },
                                      flat_storage, &t);
  if (st != BC_OK) bc_tensor_free(flat_storage);
  Check(st, "bc_tensor_wrap");
  return Tensor(t);
}

// dtype of the op's result, by the library's own promotion.
inline bc_dtype ResultDtype(const CaseSpec& c) {
  if (c.op == "where" || c.op == "addcmul" || c.op == "addcdiv" || c.op == "clamp" || c.op == "lerp")
    return c.dtype;
  const int op = BinaryOp(c.op);
  if (op >= BC_EQ && op <= BC_LOGICAL_XOR) return BC_BOOL;
  if (!IsFloating(c.dtype) &&
      (op == BC_DIV || op == BC_ATAN2 || op == BC_COPYSIGN))
    return BC_FLOAT32;
  return c.dtype;
}

// The operands, the preallocated result and one call of the op.
class Case {
 public:
  explicit Case(const std::string& line) : Case(ParseCase(line)) {}
  explicit Case(CaseSpec spec) : spec_(std::move(spec)) {
    // Repeated in place, a multiplicative op would drift self into
    // subnormals (slow on x86) or infinities; multiplying by ones keeps it
    // put and costs the same.
    kind_ = KindOf(spec_.op);
    const int bop = BinaryOp(spec_.op);
    if (bop >= 0) bop_ = static_cast<bc_op>(bop);
    const bool drifts = spec_.mode == Mode::kInplace &&
                        (bop == BC_MUL || bop == BC_DIV || bop == BC_POW || bop == BC_DIV_TRUNC ||
                         bop == BC_DIV_FLOOR);
    const size_t self_index = spec_.op == "where" ? 1 : 0;
    for (size_t i = 0; i < spec_.operands.size(); ++i) {
      const bc_dtype d = (spec_.op == "where" && i == 0) ? BC_BOOL : spec_.dtype;
      inputs_.push_back(MakeOperand(spec_.operands[i], d, i + 1, drifts && i != self_index));
      bytes_ += Numel(spec_.operands[i].shape) * static_cast<int64_t>(bc_dtype_size(d));
    }
    std::vector<const int64_t*> shapes;
    std::vector<size_t> ndims;
    for (const auto& o : spec_.operands) {
      shapes.push_back(o.shape.data());
      ndims.push_back(o.shape.size());
    }
    int64_t shape[BC_MAX_DIMS];
    size_t nd = 0;
    Check(bc_broadcast_shapes_n(shapes.data(), ndims.data(), shapes.size(), shape, sizeof shape / sizeof shape[0], &nd),
          "bc_broadcast_shapes_n");
    result_shape_.assign(shape, shape + nd);
    result_dtype_ = ResultDtype(spec_);
    if (spec_.mode == Mode::kInplace) {
      const OperandSpec& s = spec_.operands[self_index];
      if (s.shape != result_shape_)
        throw std::invalid_argument("in place needs self to have the broadcast shape");
      result_dtype_ = spec_.dtype;
      bytes_ += Numel(s.shape) * static_cast<int64_t>(bc_dtype_size(spec_.dtype));
    } else {
      bytes_ += Numel(result_shape_) * static_cast<int64_t>(bc_dtype_size(result_dtype_));
      if (spec_.mode == Mode::kOut) {
        bc_tensor* t = nullptr;
        Check(bc_tensor_empty(result_dtype_, result_shape_.data(), nd, &t), "bc_tensor_empty");
        out_.reset(t);
        // Touch every page now, so the first timed call pays no page faults.
        std::memset(bc_tensor_data(t), 0,
                    static_cast<size_t>(Numel(result_shape_)) * bc_dtype_size(result_dtype_));
      }
    }
  }

  // One call; throws with the library's message on failure.
  void Run() {
    const bc_status st = Call();
    if (st != BC_OK)
      throw std::runtime_error(spec_.op + ": " + bc_status_string(st) + ": " + bc_last_error());
  }

  // One call, returning the library's status.
  bc_status Call() {
    bc_tensor* const a = inputs_[0].get();
    bc_tensor* const b = inputs_[1].get();
    bc_tensor* const c = inputs_.size() > 2 ? inputs_[2].get() : nullptr;
    const double v = spec_.value;
    bc_status st;
    bc_tensor* fresh = nullptr;
    switch (spec_.mode) {
      case Mode::kAlloc:
        switch (kind_) {
          case Kind::kWhere: st = bc_where(a, b, c, &fresh); break;
          case Kind::kAddcmul: st = bc_addcmul(a, b, c, v, &fresh); break;
          case Kind::kAddcdiv: st = bc_addcdiv(a, b, c, v, &fresh); break;
          case Kind::kClamp: st = bc_clamp(a, b, c, &fresh); break;
          case Kind::kLerp: st = bc_lerp(a, b, c, &fresh); break;
          default: st = bc_binary(bop_, a, b, &fresh); break;
        }
        bc_tensor_free(fresh);
        return st;
      case Mode::kOut: {
        bc_tensor* const o = out_.get();
        switch (kind_) {
          case Kind::kWhere: return bc_where_out(a, b, c, o);
          case Kind::kAddcmul: return bc_addcmul_out(a, b, c, v, o);
          case Kind::kAddcdiv: return bc_addcdiv_out(a, b, c, v, o);
          case Kind::kClamp: return bc_clamp_out(a, b, c, o);
          case Kind::kLerp: return bc_lerp_out(a, b, c, o);
          default: return bc_binary_out(bop_, a, b, o);
        }
      }
      case Mode::kInplace:
        switch (kind_) {
          case Kind::kWhere: return bc_where_(b, a, c);  // self = where(cond, self, other)
          case Kind::kAddcmul: return bc_addcmul_(a, b, c, v);
          case Kind::kAddcdiv: return bc_addcdiv_(a, b, c, v);
          case Kind::kClamp: return bc_clamp_(a, b, c);
          case Kind::kLerp: return bc_lerp_(a, b, c);
          default: return bc_binary_(bop_, a, b);
        }
    }
    return BC_ERR_INTERNAL;
  }

  // Bytes read and written by one call (see the file comment).
  int64_t bytes() const { return bytes_; }
  int64_t result_numel() const { return Numel(result_shape_); }
  const CaseSpec& spec() const { return spec_; }

 private:
  enum class Kind { kBinary, kWhere, kAddcmul, kAddcdiv, kClamp, kLerp };
  static Kind KindOf(const std::string& op) {
    if (op == "where") return Kind::kWhere;
    if (op == "addcmul") return Kind::kAddcmul;
    if (op == "addcdiv") return Kind::kAddcdiv;
    if (op == "clamp") return Kind::kClamp;
    if (op == "lerp") return Kind::kLerp;
    return Kind::kBinary;
  }

  CaseSpec spec_;
  Kind kind_ = Kind::kBinary;
  bc_op bop_ = BC_ADD;
  std::vector<Tensor> inputs_;
  Tensor out_;
  std::vector<int64_t> result_shape_;
  bc_dtype result_dtype_ = BC_FLOAT32;
  int64_t bytes_ = 0;
};

}  // namespace bcbench

#endif  // BCAST_BENCH_BENCH_CASE_H
