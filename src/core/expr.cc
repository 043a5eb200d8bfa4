#include "core/expr.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstring>
#include <new>
#include <string>

#include "core/compat.h"
#include "core/dtype.h"
#include "core/error.h"
#include "core/op_info.h"
#include "core/op_rules.h"
#include "core/ops.h"
#include "core/overlap.h"
#include "core/parallel.h"
#include "core/scalar.h"
#include "core/shape.h"
#include "core/tensor.h"
#include "core/types.h"
#include "core/plan.h"
#include "hwy/cache_control.h"
#include "kernels/kernels.h"

namespace bcast {

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


// ---- evaluation ----

namespace bcast {

namespace {

// Tiles: up to this many bytes of the widest intermediate, so that the
// live ones stay in L1 or close (4096 float32 values). On the Intel Xeon VM,
// float32 chains of 64K and 16M elements: 2048-4096 elements ran a*b + c at
// 64K 1.3x faster than 16384 (whose intermediates sit in L2), and no chain
// slower; the ops that still go through the eager op per tile (clamp with
// numbers) pay about 0.2 us a tile, which keeps tiles from shrinking further.
constexpr int64_t kTileBytes = 16384;
// From this many output elements an evaluation may take several threads
// (the executor's two grains).
constexpr int64_t kParallelElems = 65536;

// The context each tile's ops run on: one thread (the evaluation's threads
// are its tiles), no warning or policy (they applied once, to the whole
// shapes), and failures thrown, not recorded.
const bc_ctx& TileContext() {
  static bc_ctx* c = [] {
    auto* p = new bc_ctx;
    p->threads.store(1);
    p->handler = [](const char*, void*) {};  // sent once per op, by the checks
    return p;
  }();
  return *c;
}

// The checks' stand-in ops run on this: one thread, and the ops' own
// warnings (where's uint8 condition, ...) collected, to be sent on the
// evaluation's context in the eager order.
struct ProbeContext {
  bc_ctx ctx;
  std::vector<std::string> warnings;
  ProbeContext() {
    ctx.threads.store(1);
    ctx.handler = [](const char* m, void* user) { static_cast<ProbeContext*>(user)->warnings.push_back(m); };
    ctx.handler_user = this;
  }
};

// Op node n's arguments for the engine, on operands `in`.
OpArgs ArgsOf(const bc_ctx& ctx, const ExprNode& n, const bc_tensor* const* in) {
  OpArgs a;
  a.ctx = &ctx;
  a.op = n.op;
  a.nin = n.nargs;
  for (int i = 0; i < n.nargs; ++i) a.in[i] = in[i];
  a.scalar = n.value;
  for (int k = 0; k < 3; ++k) a.params[k] = n.params[k];
  a.given = n.given;
  return a;
}

// clamp with two number bounds: PyTorch's clamp(Tensor, Scalar, Scalar).
bool ClampWithNumbers(const ExprNode& n, const bc_tensor* const* in) {
  return n.op == kClamp && in[1]->wrapped_number && in[2]->wrapped_number;
}

// An op that PyTorch may run on its own path when an operand is a number
// (pow): the general path's binding and broadcast warning may not apply.
bool MayTakeNumberPath(const ExprNode& n, const bc_tensor* const* in) {
  bool wrapped = false;
  for (int i = 0; i < n.nargs; ++i) wrapped |= in[i]->wrapped_number;
  return wrapped && RulesOf(n.op).number_path != nullptr;
}

// One op node on its operands, as the C API calls the engine.
bc_tensor* RunNode(const bc_ctx& ctx, const ExprNode& n, const bc_tensor* const* in, bc_tensor* out) {
  if (ClampWithNumbers(n, in)) return RunClampScalar(ctx, in[0], in[1], in[2], out, false);
  return RunElementwise(ArgsOf(ctx, n, in), out, false);
}

// A 1-element stand-in of dtype d (0-dim, or of shape (1,)) holding 1.
bc_tensor* Probe(bc_dtype d, bool zero_dim, bool wrapped) {
  Shape s{};
  if (!zero_dim) {
    s.ndim = 1;
    s.d[0] = 1;
  }
  bc_tensor* t = NewTensor(d, s);
  const double one = 1;
  ConvertStrided(d, t->data, 0, BC_FLOAT64, &one, 0, 1);
  t->wrapped_number = wrapped;
  return t;
}

// A tensor-shaped stand-in for the broadcast checks: shape and dtype only.
void SetPhantom(bc_tensor* t, bc_dtype d, const Shape& s) {
  t->dtype = d;
  t->ndim = s.ndim;
  for (int i = 0; i < s.ndim; ++i) t->shape[i] = s.d[i];
  RowMajorStrides(t->shape, t->ndim, t->strides);
}

bool SharesMemory(const bc_tensor& a, const bc_tensor& b) {
  if (Numel(a) == 0 || Numel(b) == 0) return false;
  uintptr_t alo, ahi, blo, bhi;
  ByteRange(a, &alo, &ahi);
  ByteRange(b, &blo, &bhi);
  return alo < bhi && blo < ahi;
}

}  // namespace

// What an evaluation learns from the shapes and dtypes before it computes.
struct ExprPlan {
  std::vector<Shape> shape;     // each node's eager shape
  std::vector<bc_dtype> dtype;  // each node's eager dtype
  std::vector<char> live;       // the last node depends on it
};

Expr::~Expr() = default;

namespace {

// The nodes the last one depends on.
std::vector<char> LiveNodes(const std::vector<ExprNode>& nodes) {
  std::vector<char> live(nodes.size(), 0);
  live.back() = 1;
  for (size_t k = nodes.size(); k-- > 0;) {
    if (!live[k] || nodes[k].kind != ExprNode::kOp) continue;
    for (int i = 0; i < nodes[k].nargs; ++i) live[static_cast<size_t>(nodes[k].arg[i])] = 1;
  }
  return live;
}

struct Bound;  // (below: the tile walk's binding for one layout)

// The operands of the eager chain: inputs, numbers, and the results so far.
struct Values {
  std::vector<const bc_tensor*> of;
  std::vector<std::unique_ptr<TensorGuard>> owned;
  const bc_tensor* Keep(bc_tensor* t) {
    owned.push_back(std::make_unique<TensorGuard>(t));
    return t;
  }
};

}  // namespace

// The checks' findings for operands of given shapes and dtypes (key).
struct ExprCache {
  std::vector<int64_t> key;
  ExprPlan plan;
  Values numbers;
  bool int_division = false;   // a live node divides integers (may fail part way)
  bool zero_dim_nodes = false;  // a live node before the last has a 0-dim result
  // The tile walk and bindings of the last layout evaluated.
  mutable std::mutex bound_mu;
  mutable std::shared_ptr<Bound> bound;
};

namespace {

// A key as a sequence of numbers, either built (Build) or compared with
// one built before (Matches), without building it again.
struct KeyWriter {
  std::vector<int64_t>* key;
  void Put(int64_t v) { key->push_back(v); }
};
struct KeyReader {
  const std::vector<int64_t>* key;
  size_t at = 0;
  bool same = true;
  void Put(int64_t v) {
    same = same && at < key->size() && (*key)[at] == v;
    ++at;
  }
};

// What the checks depend on: the context's settings, the operands' dtypes,
// shapes and kinds (not their data or strides: only out='s overlaps depend
// on those, and they are checked on every evaluation).
template <class K>
void PutCacheKey(K* k, const bc_ctx& ctx, const bc_tensor* const* inputs, size_t n, const bc_tensor* out) {
  k->Put(BroadcastWarningOn(ctx) | (Policy(ctx) << 1) | (ctx.warnings_as_errors.load(std::memory_order_relaxed) << 8));
  for (size_t i = 0; i <= n; ++i) {
    const bc_tensor* t = i < n ? inputs[i] : out;
    if (t == nullptr) {
      k->Put(-1);
      continue;
    }
    k->Put(t->dtype | (t->wrapped_number << 8) | (int64_t{t->ndim} << 16));
    for (int d = 0; d < t->ndim; ++d) k->Put(t->shape[d]);
  }
}

// The layout a tile walk is made for: the result's strides, whether the
// result is out, the live inputs' strides.
template <class K>
void PutLayoutKey(K* k, const bc_tensor& result, bool is_out, const std::vector<const bc_tensor*>& ins) {
  for (int d = 0; d < result.ndim; ++d) k->Put(result.strides[d]);
  k->Put(is_out);
  for (const bc_tensor* t : ins)
    for (int d = 0; d < t->ndim; ++d) k->Put(t->strides[d]);
}

// Builds a key with put(&writer), or tells whether put(&reader) gives `key`.
template <class F>
void BuildKey(std::vector<int64_t>* key, F&& put) {
  key->clear();
  KeyWriter w{key};
  put(&w);
}
template <class F>
bool KeyIs(const std::vector<int64_t>& key, F&& put) {
  KeyReader r{&key};
  put(&r);
  return r.same && r.at == key.size();
}

// out='s own overlaps and those with the last node's inputs: the written
// tensor's checks, which come first in the last op.
void CheckOutOverlaps(const std::vector<ExprNode>& nodes, const bc_tensor* const* inputs, const bc_tensor& out) {
  if (HasInternalOverlap(out)) FailInternalOverlap();
  const ExprNode& last = nodes.back();
  for (int i = 0; i < last.nargs; ++i) {
    const ExprNode& p = nodes[static_cast<size_t>(last.arg[i])];
    if (p.kind == ExprNode::kInput) CheckOverlap(out, *inputs[p.index]);
  }
}

// Checks the chain as eager would, node by node: the broadcast (errors,
// warnings and policy of ctx) on the whole shapes, then the op's dtype
// rules and own checks on 1-element stand-ins, in the eager op's order;
// for the last node with `out`, out='s overlap, shape and dtype. Fills
// `plan`; `numbers` receives the number nodes' tensors. Each op's warnings
// (its own, then the broadcast's) are sent on ctx after its checks, as the
// eager op sends them; with `defer` they are kept in `warnings` instead.
// Returns whether there were any.
bool CheckChain(const bc_ctx& ctx, const std::vector<ExprNode>& nodes, const bc_tensor* const* inputs,
                bc_tensor* out, ExprPlan* plan, Values* numbers, bool defer, std::vector<std::string>* warnings) {
  ProbeContext pc;
  bool warned = false;
  const size_t n = nodes.size();
  plan->live = LiveNodes(nodes);
  plan->shape.assign(n, Shape{});
  plan->dtype.assign(n, BC_FLOAT32);
  numbers->of.assign(n, nullptr);
  std::vector<bc_tensor> phantom(n);
  std::vector<const bc_tensor*> whole(n, nullptr);  // what the broadcast checks see
  Values probe;
  probe.of.assign(n, nullptr);
  for (size_t k = 0; k < n; ++k) {
    if (!plan->live[k]) continue;
    const ExprNode& node = nodes[k];
    if (node.kind == ExprNode::kInput) {
      const bc_tensor* t = inputs[node.index];
      if (t == nullptr) Fail(BC_ERR_INVALID_ARGUMENT, "input " + std::to_string(node.index) + " is NULL");
      whole[k] = t;
      plan->shape[k] = ShapeOf(*t);
      plan->dtype[k] = t->dtype;
      probe.of[k] = probe.Keep(Probe(t->dtype, t->ndim == 0, t->wrapped_number));
      continue;
    }
    if (node.kind == ExprNode::kNumber) {
      whole[k] = probe.of[k] = numbers->of[k] = numbers->Keep(NewWrappedScalar(node.number));
      plan->dtype[k] = whole[k]->dtype;
      continue;
    }
    const bool root = k + 1 == n && out != nullptr;
    const bc_tensor* win[3] = {};
    const bc_tensor* pin[3] = {};
    for (int i = 0; i < node.nargs; ++i) {
      win[i] = whole[static_cast<size_t>(node.arg[i])];
      pin[i] = probe.of[static_cast<size_t>(node.arg[i])];
    }
    const OpArgs a = ArgsOf(ctx, node, win);
    if (root) CheckOutOverlaps(nodes, inputs, *out);
    OperandBroadcast b = BroadcastOperands(a, root ? out : nullptr);
    if (root) CheckOutShape(a, *out, false, b);
    // pow with a number runs on its own path for some exponents, without
    // broadcasting (no warning); the stand-ins, a (1,) tensor beside the
    // 0-dim number, always warn on the general path: they tell which ran.
    const bool number_path = MayTakeNumberPath(node, a.in);
    pc.ctx.broadcast_warning.store(number_path);
    if (root) {
      TensorGuard pout(Probe(out->dtype, b.result.ndim == 0, false));
      RunNode(pc.ctx, node, pin, pout.t);
      plan->dtype[k] = out->dtype;
    } else {
      probe.of[k] = probe.Keep(RunNode(pc.ctx, node, pin, nullptr));
      plan->dtype[k] = probe.of[k]->dtype;
    }
    if (number_path) {
      // The stand-ins' warning says whether the broadcast warning applies
      // and, where it does, its text: the path's own (pow(1, x) is a copy:
      // "self and src ...").
      if (pc.warnings.empty()) b.warnings.clear();
      else if (!b.warnings.empty()) b.warnings = pc.warnings;
      pc.warnings.clear();
      pc.ctx.broadcast_warning.store(false);
    }
    for (std::string& w : b.warnings) pc.warnings.push_back(std::move(w));
    warned |= !pc.warnings.empty();
    for (std::string& w : pc.warnings) {
      if (defer) warnings->push_back(std::move(w));
      else Warn(ctx, w);
    }
    pc.warnings.clear();
    plan->shape[k] = b.result;
    SetPhantom(&phantom[k], plan->dtype[k], b.result);
    // (an op on numbers alone gives what eager gives: its stand-in says)
    if (probe.of[k] != nullptr) phantom[k].wrapped_number = probe.of[k]->wrapped_number;
    whole[k] = &phantom[k];
  }
  return warned;
}

// The chain run op by op on whole tensors (legacy pointwise mode, 0-dim and
// empty results): the eager ops themselves.
bc_tensor* EvalEager(const bc_ctx& ctx, const std::vector<ExprNode>& nodes, const std::vector<char>& live,
                     const bc_tensor* const* inputs, bc_tensor* out) {
  Values v;
  v.of.assign(nodes.size(), nullptr);
  for (size_t k = 0; k < nodes.size(); ++k) {
    if (!live[k]) continue;
    const ExprNode& node = nodes[k];
    if (node.kind == ExprNode::kInput) {
      v.of[k] = inputs[node.index];
      if (v.of[k] == nullptr) Fail(BC_ERR_INVALID_ARGUMENT, "input " + std::to_string(node.index) + " is NULL");
      continue;
    }
    if (node.kind == ExprNode::kNumber) {
      v.of[k] = v.Keep(NewWrappedScalar(node.number));
      continue;
    }
    const bc_tensor* in[3] = {};
    for (int i = 0; i < node.nargs; ++i) in[i] = v.of[static_cast<size_t>(node.arg[i])];
    if (k + 1 == nodes.size()) return RunNode(ctx, node, in, out);
    v.of[k] = v.Keep(RunNode(ctx, node, in, nullptr));
  }
  return nullptr;  // (the last node is an op: returned above)
}

// The tile walk: the result's dims with size-1 dims dropped and dims merged
// where every operand allows it; each tile is a block of the last two.
struct Walk {
  int nd = 0;
  int64_t size[BC_MAX_DIMS];
  // Per operand (the result, then the live input nodes in order): element
  // strides, and whether the operand is broadcast along the dim (its tile
  // view then has size 1 there).
  std::vector<std::array<int64_t, BC_MAX_DIMS>> st;
  std::vector<std::array<char, BC_MAX_DIMS>> bc;
  int64_t rows = 1, cols = 1;  // R and C: the last two dims (R = 1 for one dim)
  int64_t r = 1, c = 1;        // a tile's extent in them
  int64_t nrt = 1, nct = 1, ntiles = 1;
};

Walk PlanWalk(const Shape& s, const bc_tensor& result, const std::vector<const bc_tensor*>& ins,
              int64_t tile) {
  const int nops = 1 + static_cast<int>(ins.size());
  std::vector<std::array<int64_t, BC_MAX_DIMS>> st(nops);
  std::vector<std::array<char, BC_MAX_DIMS>> bc(nops);
  for (int d = 0; d < s.ndim; ++d) {
    st[0][d] = result.strides[d];
    bc[0][d] = 0;
  }
  for (int k = 1; k < nops; ++k) {
    const bc_tensor& t = *ins[static_cast<size_t>(k - 1)];
    const int lead = s.ndim - t.ndim;
    for (int d = 0; d < s.ndim; ++d) {
      const bool b = d < lead || t.shape[d - lead] == 1;
      bc[k][d] = b;
      st[k][d] = b ? 0 : t.strides[d - lead];
    }
  }
  Walk w;
  w.st.resize(nops);
  w.bc.resize(nops);
  for (int d = 0; d < s.ndim; ++d) {
    if (s.d[d] == 1) continue;
    bool merge = w.nd > 0;
    for (int k = 0; k < nops && merge; ++k)
      merge = w.st[k][w.nd - 1] == st[k][d] * s.d[d] && w.bc[k][w.nd - 1] == bc[k][d];
    if (merge) {
      w.size[w.nd - 1] *= s.d[d];
      for (int k = 0; k < nops; ++k) w.st[k][w.nd - 1] = st[k][d];
      continue;
    }
    w.size[w.nd] = s.d[d];
    for (int k = 0; k < nops; ++k) {
      w.st[k][w.nd] = st[k][d];
      w.bc[k][w.nd] = bc[k][d];
    }
    ++w.nd;
  }
  if (w.nd == 0) {  // one element
    w.size[0] = 1;
    for (int k = 0; k < nops; ++k) {
      w.st[k][0] = 0;
      w.bc[k][0] = k > 0;
    }
    w.nd = 1;
  }
  w.cols = w.size[w.nd - 1];
  w.rows = w.nd >= 2 ? w.size[w.nd - 2] : 1;
  w.c = std::min(w.cols, tile);
  w.r = w.cols >= tile ? 1 : std::min(w.rows, std::max<int64_t>(1, tile / w.cols));
  w.nct = (w.cols + w.c - 1) / w.c;
  w.nrt = (w.rows + w.r - 1) / w.r;
  int64_t outer = 1;
  for (int d = 0; d + 2 < w.nd; ++d) outer *= w.size[d];
  w.ntiles = outer * w.nrt * w.nct;
  return w;
}

// What one thread needs for its tiles: views of the operands and a buffer
// per intermediate.
struct Scratch {
  std::vector<bc_tensor> views;  // the result, then the live inputs
  std::vector<std::unique_ptr<TensorGuard>> bufs;  // per node (null: none)
  TensorGuard root;  // the last node's tile, when it is streamed out
  std::vector<const bc_tensor*> cur;  // each node's tile operand
};

// The tile walk for one layout (the operands' strides) and what it binds:
// made once per layout and kept in the cache with its threads' scratch,
// unless it holds values of this evaluation (0-dim inputs or results).
struct Bound {
  std::vector<int64_t> layout;  // the strides it was made for (PutLayoutKey)
  Walk walk;
  std::vector<int> view_of;             // node -> its view (1 + index in ins), or -1
  std::vector<const bc_tensor*> fixed;  // numbers and 0-dim results, per node
  // Per node: its op as one kernel call where its dtypes allow (the
  // small-op path's binding), for tiles whose rows are contiguous.
  std::vector<char> direct_ok;
  std::vector<DirectCall> direct;
  std::mutex mu;
  std::vector<std::unique_ptr<Scratch>> spare;  // scratch of earlier evaluations
};

struct TileRun {
  const std::vector<ExprNode>* nodes;
  const ExprPlan* plan;
  const Bound* b;
  const bc_tensor* result;
  std::vector<const bc_tensor*> ins;   // the live input nodes' tensors
  std::mutex mu;
  std::vector<std::unique_ptr<Scratch>> free;
  std::atomic<bool> failed{false};
  Error error;
  int64_t per_chunk = 0;
  // Large results are computed into a tile in cache and leave it with
  // streaming stores: never read for ownership, as bcast's own ops write.
  bool stream = false;
};

// Which op nodes run straight through their kernels (RunDirect): those
// whose operands' dtypes the small-op path takes, and not numbers' own
// paths (pow and clamp with numbers).
void BindNodes(const std::vector<ExprNode>& nodes, const ExprPlan& plan, const bc_tensor* const* inputs,
               const bc_tensor* out, int td, Bound* run) {
  run->direct_ok.assign(nodes.size(), 0);
  run->direct.resize(nodes.size());
  std::vector<bc_tensor> phantom(nodes.size());
  std::vector<const bc_tensor*> typed(nodes.size(), nullptr);  // dtype and ndim of each operand
  for (size_t k = 0; k < nodes.size(); ++k) {
    if (!plan.live[k]) continue;
    const ExprNode& node = nodes[k];
    if (run->fixed[k] != nullptr) {
      typed[k] = run->fixed[k];
      continue;
    }
    if (node.kind == ExprNode::kInput) {
      typed[k] = inputs[node.index];
      continue;
    }
    phantom[k].dtype = plan.dtype[k];
    phantom[k].ndim = td;
    typed[k] = &phantom[k];
    const bc_tensor* in[3] = {};
    unsigned one_value = 0;
    for (int i = 0; i < node.nargs; ++i) {
      in[i] = typed[static_cast<size_t>(node.arg[i])];
      if (in[i]->ndim == 0) one_value |= 1u << i;
    }
    if (MayTakeNumberPath(node, in)) continue;
    // clamp with number bounds on floats, neither NaN, runs the ternary
    // clamp on the bounds as they are (RunClampScalar's last step; its
    // range checks passed in the checks).
    if (ClampWithNumbers(node, in) &&
        (!IsFloating(in[0]->dtype) || std::isnan(WrappedValue(*in[1])) || std::isnan(WrappedValue(*in[2]))))
      continue;
    const OpArgs a = ArgsOf(TileContext(), node, in);
    const bool root = k + 1 == nodes.size();
    try {
      run->direct_ok[k] = BindDirect(a, root ? out : nullptr, one_value, &run->direct[k]);
    } catch (const Error&) {  // (the checks passed: cannot happen)
      run->direct_ok[k] = 0;
    }
  }
}

// Points a thread's views at this evaluation's operands.
void PointViews(const TileRun& run, Scratch* s) {
  for (size_t k = 0; k < s->views.size(); ++k) {
    const bc_tensor& src = k == 0 ? *run.result : *run.ins[k - 1];
    s->views[k].storage = src.storage;
    s->views[k].dtype = src.dtype;
  }
}

std::unique_ptr<Scratch> NewScratch(const TileRun& run) {
  auto s = std::make_unique<Scratch>();
  const size_t nviews = 1 + run.ins.size();
  s->views.resize(nviews);
  const Walk& w = run.b->walk;
  const int td = std::min(w.nd, 2);
  for (bc_tensor& v : s->views) v.ndim = td;
  PointViews(run, s.get());
  const std::vector<ExprNode>& nodes = *run.nodes;
  s->bufs.resize(nodes.size());
  s->cur.resize(nodes.size());
  Shape tile{};
  tile.ndim = td;
  tile.d[td - 1] = w.c;
  if (td == 2) tile.d[0] = w.r;
  for (size_t k = 0; k + 1 < nodes.size(); ++k) {
    if (!run.plan->live[k] || nodes[k].kind != ExprNode::kOp || run.b->fixed[k] != nullptr) continue;
    s->bufs[k] = std::make_unique<TensorGuard>(NewTensor(run.plan->dtype[k], tile));
  }
  return s;
}

// Node k's op straight through its kernel on tile operands `in`, into `o`
// (whose shape is the node's tile): false, nothing done, where a row is
// not contiguous (a transposed input). `stores`: plain, or plain with the
// inputs fetched ahead.
bool RunDirect(const DirectCall& call, int nargs, const bc_tensor* const* in, const bc_tensor& o, int td,
               StoreMode stores) {
  const int64_t n = o.shape[td - 1], rows = td == 2 ? o.shape[0] : 1;
  if (n > 1 && o.strides[td - 1] != 1) return false;
  char* ptr[4];
  int64_t step[4];
  unsigned bcast = 0;
  ptr[0] = o.data;
  step[0] = td == 2 ? o.strides[0] * static_cast<int64_t>(DtypeSize(o.dtype)) : 0;
  for (int i = 0; i < nargs; ++i) {
    const bc_tensor& x = *in[i];
    if (x.ndim == 0) {
      ptr[i + 1] = const_cast<char*>(call.values[i]);
      step[i + 1] = 0;
      if (n > 1) bcast |= 1u << i;
      continue;
    }
    if (x.shape[td - 1] == 1) {
      if (n > 1) bcast |= 1u << i;
    } else if (x.strides[td - 1] != 1) {
      return false;
    }
    ptr[i + 1] = x.data;
    step[i + 1] = td == 2 && x.shape[0] != 1 ? x.strides[0] * static_cast<int64_t>(DtypeSize(x.dtype)) : 0;
  }
  if (call.swap) {
    std::swap(ptr[1], ptr[2]);
    std::swap(step[1], step[2]);
    bcast = (bcast & ~3u) | ((bcast & 1u) << 1) | ((bcast >> 1) & 1u);
  }
  call.kernel(n, rows, ptr, step, bcast, call.scalar, stores);
  return true;
}

// One op node on its tile.
void RunTileNode(const TileRun& run, size_t k, const bc_tensor* const* in, bc_tensor* o, int td) {
  const ExprNode& node = (*run.nodes)[k];
  // Inputs from memory (a streamed result) are fetched ahead by the ops
  // that ask for it (transcendentals: the hardware prefetchers fall behind
  // their arithmetic); the tiles themselves stay in the cache.
  const StoreMode stores = run.stream ? kPlainAndPrefetch : kPlainStores;
  if (run.b->direct_ok[k] && RunDirect(run.b->direct[k], node.nargs, in, *o, td, stores)) return;
  RunNode(TileContext(), node, in, o);
}

// Where tile t lies: its first row and column in the last two dims, its
// extent there, and its index in the dims before them.
struct TilePos {
  int64_t r0, c0, er, ec;
  int64_t idx[BC_MAX_DIMS];
};

TilePos PosOf(const Walk& w, int64_t t) {
  TilePos p;
  const int64_t per_plane = w.nrt * w.nct;
  int64_t o = t / per_plane;
  const int64_t rem = t % per_plane;
  p.r0 = (rem / w.nct) * w.r;
  p.c0 = (rem % w.nct) * w.c;
  p.er = std::min(w.r, w.rows - p.r0);
  p.ec = std::min(w.c, w.cols - p.c0);
  for (int d = w.nd - 3; d >= 0; --d) {
    p.idx[d] = o % w.size[d];
    o /= w.size[d];
  }
  return p;
}

// Operand k's first element of the tile at p, in elements from its data.
int64_t TileOffset(const Walk& w, size_t k, const TilePos& p) {
  const int nd = w.nd;
  int64_t off = 0;
  for (int d = 0; d + 2 < nd; ++d) off += p.idx[d] * w.st[k][d];
  off += p.c0 * w.st[k][nd - 1];
  if (nd >= 2) off += p.r0 * w.st[k][nd - 2];
  return off;
}

// Tile t: points each view at it and runs the live op nodes in order.
void RunTile(TileRun& run, Scratch& s, int64_t t) {
  const Walk& w = run.b->walk;
  std::vector<const bc_tensor*>& cur = s.cur;
  const int nd = w.nd, td = std::min(nd, 2);
  const TilePos pos = PosOf(w, t);
  const int64_t er = pos.er, ec = pos.ec;
  for (size_t k = 0; k < s.views.size(); ++k) {
    const bc_tensor& src = k == 0 ? *run.result : *run.ins[k - 1];
    bc_tensor& v = s.views[k];
    v.data = src.data + TileOffset(w, k, pos) * static_cast<int64_t>(DtypeSize(src.dtype));
    v.shape[td - 1] = w.bc[k][nd - 1] ? 1 : ec;
    v.strides[td - 1] = w.st[k][nd - 1];
    if (td == 2) {
      v.shape[0] = w.bc[k][nd - 2] ? 1 : er;
      v.strides[0] = w.st[k][nd - 2];
    }
  }
  const std::vector<ExprNode>& nodes = *run.nodes;
  for (size_t k = 0; k < nodes.size(); ++k) {
    if (!run.plan->live[k]) continue;
    if (run.b->fixed[k] != nullptr) {
      cur[k] = run.b->fixed[k];
      continue;
    }
    const ExprNode& node = nodes[k];
    if (node.kind == ExprNode::kInput) {
      const int v = run.b->view_of[k];
      cur[k] = run.ins[static_cast<size_t>(v - 1)]->ndim == 0 ? run.ins[static_cast<size_t>(v - 1)]
                                                               : &s.views[static_cast<size_t>(v)];
      continue;
    }
    const bc_tensor* in[3] = {};
    for (int i = 0; i < node.nargs; ++i) in[i] = cur[static_cast<size_t>(node.arg[i])];
    if (k + 1 == nodes.size()) {
      bc_tensor& o = s.views[0];
      // A streamed result: the root's kernel streams it itself where it
      // runs directly; else it computes into a tile that is then streamed.
      if (run.stream && IsContiguous(o) && run.b->direct_ok[k] &&
          RunDirect(run.b->direct[k], node.nargs, in, o, td, kStreamStores)) {
        break;
      }
      if (run.stream && IsContiguous(o)) {
        if (s.root.t == nullptr) {
          Shape tile{};
          tile.ndim = td;
          tile.d[td - 1] = w.c;
          if (td == 2) tile.d[0] = w.r;
          s.root.t = NewTensor(run.result->dtype, tile);
        }
        bc_tensor& b = *s.root.t;
        for (int d = 0; d < td; ++d) b.shape[d] = o.shape[d];
        RowMajorStrides(b.shape, td, b.strides);
        RunTileNode(run, k, in, &b, td);
        RunConvertKernel(b.dtype, o.data, b.dtype, b.data, Numel(b), true);
      } else {
        RunTileNode(run, k, in, &o, td);
      }
      break;
    }
    // The intermediate's tile: its operands' tiles broadcast.
    bc_tensor& b = *s.bufs[k]->t;
    for (int d = 0; d < td; ++d) {
      int64_t size = 1;
      for (int i = 0; i < node.nargs; ++i) {
        const bc_tensor& x = *in[i];
        const int j = d - (td - x.ndim);
        if (j >= 0 && x.shape[j] != 1) size = x.shape[j];
      }
      b.shape[d] = size;
    }
    RowMajorStrides(b.shape, td, b.strides);
    RunTileNode(run, k, in, &b, td);
    cur[k] = &b;
  }
}

void RunChunk(void* task, size_t chunk) {
  TileRun& run = *static_cast<TileRun*>(task);
  if (run.failed.load(std::memory_order_relaxed)) return;
  std::unique_ptr<Scratch> s;
  try {
    {
      std::lock_guard<std::mutex> lock(run.mu);
      if (!run.free.empty()) {
        s = std::move(run.free.back());
        run.free.pop_back();
      }
    }
    if (!s) s = NewScratch(run);
    const int64_t t0 = static_cast<int64_t>(chunk) * run.per_chunk;
    const int64_t t1 = std::min(run.b->walk.ntiles, t0 + run.per_chunk);
    for (int64_t t = t0; t < t1 && !run.failed.load(std::memory_order_relaxed); ++t) RunTile(run, *s, t);
    if (run.stream) hwy::FlushStream();
  } catch (const Error& e) {
    std::lock_guard<std::mutex> lock(run.mu);
    if (!run.failed.exchange(true)) run.error = e;
  } catch (const std::bad_alloc&) {
    std::lock_guard<std::mutex> lock(run.mu);
    if (!run.failed.exchange(true)) run.error = Error{BC_ERR_OUT_OF_MEMORY, "out of memory"};
  } catch (...) {
    std::lock_guard<std::mutex> lock(run.mu);
    if (!run.failed.exchange(true)) run.error = Error{BC_ERR_INTERNAL, "unexpected exception"};
  }
  if (s) {
    std::lock_guard<std::mutex> lock(run.mu);
    run.free.push_back(std::move(s));
  }
}

}  // namespace

bc_tensor* Expr::Eval(const bc_ctx& ctx, const bc_tensor* const* inputs, size_t ninputs, bc_tensor* out) {
  if (ninputs != ninputs_)
    Fail(BC_ERR_INVALID_ARGUMENT, "the expression takes " + std::to_string(ninputs_) + " inputs, not " +
                                      std::to_string(ninputs));
  if (ninputs > 0 && inputs == nullptr) Fail(BC_ERR_INVALID_ARGUMENT, "inputs is NULL");
  if (nodes_.empty()) Fail(BC_ERR_INVALID_ARGUMENT, "the expression has no nodes");
  const ExprNode& last = nodes_.back();
  if (last.kind != ExprNode::kOp) {
    // An input or a number: a copy, with copy_'s rules for out=.
    TensorGuard number;
    const bc_tensor* x = last.kind == ExprNode::kInput ? inputs[last.index] : (number.t = NewWrappedScalar(last.number));
    if (x == nullptr) Fail(BC_ERR_INVALID_ARGUMENT, "input " + std::to_string(last.index) + " is NULL");
    OpArgs a;
    a.ctx = &ctx;
    a.op = kCopy;
    a.nin = 1;
    a.in[0] = x;
    if (out != nullptr) return RunElementwise(a, out, true);
    TensorGuard r(NewTensor(x->dtype, ShapeOf(*x)));
    RunElementwise(a, r.t, true);
    return r.release();
  }
  if (LegacyPointwiseOn(ctx)) return EvalEager(ctx, nodes_, LiveNodes(nodes_), inputs, out);

  // Checks that depend on values (an integer division by zero) come, in
  // the eager chain, before the checks of the ops after them, and before
  // the broadcast warnings of their own op, which may be errors. A chain
  // with such an op that fails a check, or warns, runs op by op instead,
  // so that the first failure is the eager one.
  std::shared_ptr<const ExprCache> known;
  {
    std::lock_guard<std::mutex> lock(cache_mu_);
    if (cache_ != nullptr &&
        KeyIs(cache_->key, [&](auto* k) { PutCacheKey(k, ctx, inputs, ninputs, out); }))
      known = cache_;
  }
  if (known != nullptr) {
    if (out != nullptr) CheckOutOverlaps(nodes_, inputs, *out);
  } else {
    bool value_checks = false;
    for (const ExprNode& node : nodes_) value_checks |= node.kind == ExprNode::kOp && IsIntDivision(node.op);
    auto found = std::make_shared<ExprCache>();
    std::vector<std::string> warnings;
    bool warned;
    try {
      warned = CheckChain(ctx, nodes_, inputs, out, &found->plan, &found->numbers, value_checks, &warnings);
    } catch (const Error&) {
      if (!value_checks) throw;
      return EvalEager(ctx, nodes_, LiveNodes(nodes_), inputs, out);
    }
    if (warned && value_checks) return EvalEager(ctx, nodes_, found->plan.live, inputs, out);
    for (size_t k = 0; k < nodes_.size(); ++k) {
      const ExprNode& node = nodes_[k];
      if (!found->plan.live[k] || node.kind != ExprNode::kOp) continue;
      found->int_division |= IsIntDivision(node.op) && !IsFloating(found->plan.dtype[k]);
      found->zero_dim_nodes |= k + 1 < nodes_.size() && found->plan.shape[k].ndim == 0;
    }
    known = found;
    if (!warned) {  // (warnings are sent on every evaluation)
      BuildKey(&found->key, [&](auto* k) { PutCacheKey(k, ctx, inputs, ninputs, out); });
      std::lock_guard<std::mutex> lock(cache_mu_);
      cache_ = known;
    }
  }
  const ExprPlan& plan = known->plan;
  const Values& numbers = known->numbers;
  const Shape& s = plan.shape.back();
  if (s.ndim == 0 || ShapeNumel(s) == 0)  // checked and warned already: the ops alone
    return EvalEager(TileContext(), nodes_, plan.live, inputs, out);

  // Where the result goes: out, or a new tensor, or a temporary copied into
  // out at the end when out shares memory with an input other than as the
  // same view, or when an integer division may fail part way.
  bool via_temp = out != nullptr && known->int_division;
  bool per_call = known->zero_dim_nodes;  // the binding reads values of this evaluation
  TileRun run;
  run.ins.reserve(ninputs);
  for (size_t k = 0; k < nodes_.size(); ++k) {
    if (!plan.live[k] || nodes_[k].kind != ExprNode::kInput) continue;
    const bc_tensor* t = inputs[nodes_[k].index];
    run.ins.push_back(t);
    per_call |= t->ndim == 0;
    if (out != nullptr && !via_temp && !SameView(*out, *t) && SharesMemory(*out, *t)) via_temp = true;
  }
  TensorGuard fresh;
  bc_tensor* result = out;
  if (out == nullptr || via_temp) result = fresh.t = NewTensor(out != nullptr ? out->dtype : plan.dtype.back(), s);

  auto put_layout = [&](auto* k) { PutLayoutKey(k, *result, result == out, run.ins); };
  std::shared_ptr<Bound> bound;
  if (!per_call) {
    std::lock_guard<std::mutex> lock(known->bound_mu);
    if (known->bound != nullptr && KeyIs(known->bound->layout, put_layout)) bound = known->bound;
  }
  Values fixed;
  if (bound == nullptr) {
    bound = std::make_shared<Bound>();
    Bound& b = *bound;
    b.view_of.assign(nodes_.size(), -1);
    b.fixed.assign(nodes_.size(), nullptr);
    int view = 0;
    // Nodes of 0-dim results (every operand 0-dim) are computed once.
    fixed.of.assign(nodes_.size(), nullptr);
    for (size_t k = 0; k < nodes_.size(); ++k) {
      if (!plan.live[k]) continue;
      const ExprNode& node = nodes_[k];
      if (node.kind == ExprNode::kInput) {
        b.view_of[k] = ++view;
      } else if (node.kind == ExprNode::kNumber) {
        b.fixed[k] = numbers.of[k];
      } else if (k + 1 < nodes_.size() && plan.shape[k].ndim == 0) {
        const bc_tensor* in[3] = {};
        for (int i = 0; i < node.nargs; ++i) {
          const ExprNode& p = nodes_[static_cast<size_t>(node.arg[i])];
          in[i] = p.kind == ExprNode::kInput ? inputs[p.index] : b.fixed[static_cast<size_t>(node.arg[i])];
        }
        b.fixed[k] = fixed.Keep(RunNode(TileContext(), node, in, nullptr));
      }
    }
    size_t widest = DtypeSize(result->dtype);
    for (size_t k = 0; k < nodes_.size(); ++k)
      if (plan.live[k] && nodes_[k].kind == ExprNode::kOp) widest = std::max(widest, DtypeSize(plan.dtype[k]));
    b.walk = PlanWalk(s, *result, run.ins, kTileBytes / static_cast<int64_t>(widest));
    BindNodes(nodes_, plan, inputs, out != nullptr ? result : nullptr, std::min(b.walk.nd, 2), &b);
    if (!per_call) {
      BuildKey(&b.layout, put_layout);
      std::lock_guard<std::mutex> lock(known->bound_mu);
      known->bound = bound;
    }
  }
  const Walk& w = bound->walk;
  run.nodes = &nodes_;
  run.plan = &plan;
  run.b = bound.get();
  run.result = result;
  const int64_t numel = ShapeNumel(s);
  int threads = numel >= kParallelElems ? NumThreads(ctx) : 1;
  if (threads > w.ntiles) threads = static_cast<int>(w.ntiles);
  int64_t moved = numel * static_cast<int64_t>(DtypeSize(result->dtype));
  bool aliased = false;
  for (const bc_tensor* t : run.ins) {
    moved += Numel(*t) * static_cast<int64_t>(DtypeSize(t->dtype));
    aliased |= t->storage == result->storage;
  }
  run.stream = !aliased && moved >= StreamingBytes(threads);
  const size_t nchunks = std::min<size_t>(static_cast<size_t>(w.ntiles), ChunkCount(threads));
  run.per_chunk = (w.ntiles + static_cast<int64_t>(nchunks) - 1) / static_cast<int64_t>(nchunks);
  // Every thread's buffers before the first write: running out of memory
  // part way would leave out half written. They go back to the binding
  // after the run, for the next evaluation.
  {
    std::lock_guard<std::mutex> lock(bound->mu);
    while (static_cast<int>(run.free.size()) < threads && !bound->spare.empty()) {
      run.free.push_back(std::move(bound->spare.back()));
      bound->spare.pop_back();
      PointViews(run, run.free.back().get());
    }
  }
  struct GiveBack {
    TileRun& run;
    Bound& b;
    ~GiveBack() {
      std::lock_guard<std::mutex> lock(b.mu);
      for (auto& sc : run.free) b.spare.push_back(std::move(sc));
    }
  } give_back{run, *bound};
  while (static_cast<int>(run.free.size()) < threads) run.free.push_back(NewScratch(run));
  const size_t used = static_cast<size_t>((w.ntiles + run.per_chunk - 1) / run.per_chunk);
  if (threads <= 1) {
    for (size_t i = 0; i < used; ++i) RunChunk(&run, i);
  } else {
    ParallelChunks(ctx, threads, used, RunChunk, &run);
  }
  if (run.failed.load()) throw run.error;
  if (out != nullptr && result != out) CopyElements(ctx, *out, *result);
  if (out != nullptr) return out;
  return fresh.release();
}

}  // namespace bcast
