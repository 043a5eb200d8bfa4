package bcast

/*
#include "gobc.h"
*/
import "C"

import (
	"runtime"
	"sync"
	"unsafe"
)

// Fused expressions (the C bc_expr): a chain of elementwise ops over
// broadcast inputs, run in one pass over cache-sized blocks, so that
// intermediates never reach memory. where(x > 0, x, 0.1 * x) reads x once
// and writes its result once. The result is bit for bit that of the same
// ops run one by one (Gt, MulScalar, Where, ...): every node has the dtype,
// rounding and errors of its eager op, numbers are wrapped numbers as
// Scalar operands are, and nothing is fused into a multiply-add that the
// eager chain would not do.
//
// An Expr is a list of nodes: inputs, numbers and ops called by name
// (Op.String, UnaryOp.String, or "where", "clamp", "lerp", "addcmul",
// "addcdiv"), each on nodes made before it. Its value is its last node. A
// unary op with parameters takes them as trailing number nodes
// (hardtanh(x, -2, 2)); addcmul and addcdiv take value as an optional fourth
// number node; clamp's bounds may be numbers or nodes; add and sub take no
// alpha. Building checks names, operand counts and node numbers; dtype
// errors come at evaluation, with the eager op's text.

// MaxExprNodes is the most nodes an Expr may have (C's BC_EXPR_MAX_NODES).
const MaxExprNodes = C.BC_EXPR_MAX_NODES

// Node is a node of an Expr: its number in the expression (0 for the first
// node made). It means something only to the Expr that made it; C refuses
// a number that the Expr does not have yet.
type Node int32

// Expr is a fused elementwise expression over a fixed number of inputs.
// Make one with NewExpr and the builders (Input, Number, Call), or with
// ParseExpr.
//
// Any number of goroutines may evaluate an Expr at once (Eval, EvalOut,
// Context.EvalExpr); the builders wait for evaluations in progress, and
// evaluations wait for a builder. Call Close when done; a finalizer frees a
// forgotten Expr.
type Expr struct {
	mu sync.RWMutex // evaluations hold it shared, builders and Close exclusively
	e  *C.bc_expr   // nil once closed
}

// NewExpr returns an expression with no nodes over ninputs inputs (0 to
// MaxExprNodes).
func NewExpr(ninputs int) (*Expr, error) {
	if ninputs < 0 {
		return nil, goError(ErrInvalidArgument, "NewExpr: negative input count")
	}
	var h *C.bc_expr
	if err := threadCall(func() C.bc_status { return C.bc_expr_new(C.size_t(ninputs), &h) }); err != nil {
		return nil, err
	}
	return newExpr(h), nil
}

// ParseExpr parses an expression in Python's syntax over the inputs names
// (input i is names[i]): numbers (2, 0.1, 1e-3, True, False), the names,
// parentheses, calls of the op table's names, and the operators by
// Python's precedence (|, ^, &, comparisons, << >>, + -, * / // %, unary
// - + ~, **). / is true division, // floor division, % remainder. A syntax
// error fails with ErrInvalidArgument and the position in the message
// ("at column 7: expected ')'").
func ParseExpr(text string, names ...string) (*Expr, error) {
	ctext := C.CString(text)
	defer C.free(unsafe.Pointer(ctext))
	// C strings in a Go slice: Go memory holding no Go pointer, which C may
	// read during the call.
	cnames := make([]*C.char, len(names)+1)
	for i, n := range names {
		cnames[i] = C.CString(n)
	}
	defer func() {
		for _, p := range cnames[:len(names)] {
			C.free(unsafe.Pointer(p))
		}
	}()
	var h *C.bc_expr
	err := threadCall(func() C.bc_status {
		return C.bc_expr_parse(ctext, &cnames[0], C.size_t(len(names)), &h)
	})
	if err != nil {
		return nil, err
	}
	return newExpr(h), nil
}

func newExpr(h *C.bc_expr) *Expr {
	e := &Expr{e: h}
	runtime.SetFinalizer(e, (*Expr).Close)
	return e
}

// Close frees the expression; later calls fail with ErrInvalidArgument
// ("use of closed Expr"). Close waits for evaluations in progress, is
// idempotent and always returns nil.
func (e *Expr) Close() error {
	if e == nil {
		return nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.e == nil {
		return nil
	}
	runtime.SetFinalizer(e, nil)
	C.bc_expr_free(e.e)
	e.e = nil
	return nil
}

// handle returns the C expression; the caller holds e.mu.
func (e *Expr) handle() (*C.bc_expr, error) {
	if e.e == nil {
		return nil, goError(ErrInvalidArgument, "use of closed Expr")
	}
	return e.e, nil
}

// build runs one builder on e, holding it exclusively; the builders record
// failures in the calling thread's slot (they have no context form).
func (e *Expr) build(f func(h *C.bc_expr, node *C.int32_t) C.bc_status) (Node, error) {
	if e == nil {
		return -1, goError(ErrInvalidArgument, "nil *Expr")
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	h, err := e.handle()
	if err != nil {
		return -1, err
	}
	node := C.int32_t(-1)
	if err := threadCall(func() C.bc_status { return f(h, &node) }); err != nil {
		return -1, err
	}
	return Node(node), nil
}

// Input adds a node that is input i.
func (e *Expr) Input(i int) (Node, error) {
	return e.build(func(h *C.bc_expr, node *C.int32_t) C.bc_status {
		return C.bc_expr_input(h, C.int64_t(i), node)
	})
}

// Number adds a number node: a wrapped number, as PyTorch wraps a Python
// number (IntScalar(2), FloatScalar(0.1), BoolScalar(true)).
func (e *Expr) Number(s Scalar) (Node, error) {
	v := s.c()
	return e.build(func(h *C.bc_expr, node *C.int32_t) C.bc_status {
		return C.bc_expr_number(h, &v, node)
	})
}

// Call adds a node calling the op named op on args, nodes made before.
// An unknown op, a wrong number of operands, a node that does not exist yet
// or a parameter that is not a number node fails with ErrInvalidArgument.
func (e *Expr) Call(op string, args ...Node) (Node, error) {
	cop := C.CString(op)
	defer C.free(unsafe.Pointer(cop))
	cargs := make([]C.int32_t, len(args)+1) // never empty, so &cargs[0] exists
	for i, a := range args {
		cargs[i] = C.int32_t(a)
	}
	return e.build(func(h *C.bc_expr, node *C.int32_t) C.bc_status {
		return C.bc_expr_call(h, cop, &cargs[0], C.size_t(len(args)), node)
	})
}

// Binary adds op(a, b): Call(op.String(), a, b).
func (e *Expr) Binary(op Op, a, b Node) (Node, error) { return e.Call(op.String(), a, b) }

// Unary adds op(x) with op's default parameters: Call(op.String(), x).
func (e *Expr) Unary(op UnaryOp, x Node) (Node, error) { return e.Call(op.String(), x) }

// NumNodes returns the number of nodes (0 once closed).
func (e *Expr) NumNodes() int {
	if e == nil {
		return 0
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	return int(C.bc_expr_num_nodes(e.e))
}

// EvalExpr evaluates e on inputs (as many as e has inputs) into a new
// tensor of the last node's shape and dtype, on c. It fails as the first
// failing op of the eager chain does, with its text, or with
// ErrInvalidArgument for a wrong input count, an empty expression, or
// legacy pointwise mode (expressions broadcast only).
func (c *Context) EvalExpr(e *Expr, inputs ...*Tensor) (*Tensor, error) {
	if e == nil {
		return nil, goError(ErrInvalidArgument, "nil *Expr")
	}
	hs, err := handles(inputs...)
	if err != nil {
		return nil, err
	}
	hs = append(hs, nil) // never empty, so &hs[0] exists
	e.mu.RLock()
	defer e.mu.RUnlock()
	h, err := e.handle()
	if err != nil {
		return nil, err
	}
	ph, n := &hs[0], C.size_t(len(inputs))
	t, err := c.makeTensor(func(l *C.bc_ctx, out **C.bc_tensor) C.bc_status {
		return C.bc_ctx_expr_eval(l, h, ph, n, out)
	})
	runtime.KeepAlive(inputs)
	return t, err
}

// Eval is Default().EvalExpr(e, inputs...).
func (e *Expr) Eval(inputs ...*Tensor) (*Tensor, error) {
	return defaultContext.EvalExpr(e, inputs...)
}

// EvalExprOut evaluates e on inputs into out, on c. out must have the
// result's shape; its dtype may differ where the last op's out= form allows
// it. out may be one of the inputs (the same view) but may share no other
// memory with one. On failure out is unchanged.
func (c *Context) EvalExprOut(e *Expr, out *Tensor, inputs ...*Tensor) error {
	if e == nil {
		return goError(ErrInvalidArgument, "nil *Expr")
	}
	hs, err := handles(inputs...)
	if err != nil {
		return err
	}
	oh, err := out.handle()
	if err != nil {
		return err
	}
	hs = append(hs, nil)
	e.mu.RLock()
	defer e.mu.RUnlock()
	h, err := e.handle()
	if err != nil {
		return err
	}
	ph, n := &hs[0], C.size_t(len(inputs))
	err = c.do(func(l *C.bc_ctx) C.bc_status { return C.bc_ctx_expr_eval_out(l, h, ph, n, oh) })
	runtime.KeepAlive(inputs)
	runtime.KeepAlive(out)
	return err
}

// EvalOut is Default().EvalExprOut(e, out, inputs...).
func (e *Expr) EvalOut(out *Tensor, inputs ...*Tensor) error {
	return defaultContext.EvalExprOut(e, out, inputs...)
}
