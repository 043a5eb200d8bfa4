// Fused expressions' C entry points (src/core/expr.cc does the work).
#include "bcast/bcast.h"
#include "capi/guard.h"
#include "core/expr.h"
#include "core/tensor.h"

struct bc_expr {
  std::unique_ptr<bcast::Expr> e;
};

namespace {

using bcast::NotNull;

// A builder's result: the node's number, where the caller asked for it.
template <typename F>
bc_status Build(bc_expr* e, int32_t* node, F&& f) {
  if (node) *node = -1;
  return bcast::Guarded(nullptr, [&] {
    NotNull(e, "e");
    const int32_t n = f(*e->e);
    if (node) *node = n;
  });
}

bc_status Do_expr_eval(bc_ctx* ctx, bc_expr* e, const bc_tensor* const* inputs, size_t ninputs,
                       bc_tensor** out) {
  if (out) *out = nullptr;
  return bcast::Guarded(ctx, [&] {
    NotNull(e, "e");
    NotNull(out, "out");
    *out = e->e->Eval(bcast::Resolve(ctx), inputs, ninputs, nullptr);
  });
}

bc_status Do_expr_eval_out(bc_ctx* ctx, bc_expr* e, const bc_tensor* const* inputs, size_t ninputs,
                           bc_tensor* out) {
  return bcast::Guarded(ctx, [&] {
    NotNull(e, "e");
    NotNull(out, "out");
    bcast::CheckWritable(*out, "out");
    e->e->Eval(bcast::Resolve(ctx), inputs, ninputs, out);
  });
}

}  // namespace

BC_API bc_status bc_expr_new(size_t ninputs, bc_expr** e) {
  if (e) *e = nullptr;
  return bcast::Guarded(nullptr, [&] {
    NotNull(e, "e");
    auto made = std::make_unique<bcast::Expr>(ninputs);
    *e = new bc_expr{std::move(made)};
  });
}

BC_API void bc_expr_free(bc_expr* e) { delete e; }

BC_API bc_status bc_expr_input(bc_expr* e, int64_t index, int32_t* node) {
  return Build(e, node, [&](bcast::Expr& x) { return x.Input(index); });
}

BC_API bc_status bc_expr_number(bc_expr* e, const bc_scalar* value, int32_t* node) {
  return Build(e, node, [&](bcast::Expr& x) {
    NotNull(value, "value");
    return x.Number(*value);
  });
}

BC_API bc_status bc_expr_call(bc_expr* e, const char* op, const int32_t* args, size_t nargs, int32_t* node) {
  return Build(e, node, [&](bcast::Expr& x) { return x.Call(op, args, nargs); });
}

BC_API bc_status bc_expr_parse(const char* text, const char* const* names, size_t nnames, bc_expr** e) {
  if (e) *e = nullptr;
  return bcast::Guarded(nullptr, [&] {
    NotNull(text, "text");
    NotNull(e, "e");
    if (nnames > 0) NotNull(names, "names");
    auto parsed = bcast::ParseExpr(text, names, nnames);
    *e = new bc_expr{std::move(parsed)};
  });
}

BC_API size_t bc_expr_num_nodes(const bc_expr* e) { return e == nullptr ? 0 : e->e->nodes().size(); }

BC_FORMS(expr_eval, (bc_expr * e, const bc_tensor* const* inputs, size_t ninputs, bc_tensor** out),
         (e, inputs, ninputs, out))
BC_FORMS(expr_eval_out, (bc_expr * e, const bc_tensor* const* inputs, size_t ninputs, bc_tensor* out),
         (e, inputs, ninputs, out))
