package bcast

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
)

// Fused expressions against the same ops run one by one through the
// package's eager functions: bit for bit, and error for error.

// exprBits returns every element's bits in t's own dtype (NaN payloads and
// the sign of zero included).
func exprBits(t testing.TB, x *Tensor) []uint64 {
	t.Helper()
	n := int(x.NumEl())
	out := make([]uint64, n)
	switch x.DType() {
	case Bool:
		v := must(x.Bools())(t)
		for i := range v {
			if v[i] {
				out[i] = 1
			}
		}
	case Uint8:
		for i, v := range must(x.Uint8s())(t) {
			out[i] = uint64(v)
		}
	case Int8:
		for i, v := range must(x.Int8s())(t) {
			out[i] = uint64(v)
		}
	case Int16:
		for i, v := range must(x.Int16s())(t) {
			out[i] = uint64(v)
		}
	case Int32:
		for i, v := range must(x.Int32s())(t) {
			out[i] = uint64(v)
		}
	case Int64:
		for i, v := range must(x.Int64s())(t) {
			out[i] = uint64(v)
		}
	case Float16:
		for i, v := range must(x.Float16Bits())(t) {
			out[i] = uint64(v)
		}
	case BFloat16:
		for i, v := range must(x.BFloat16Bits())(t) {
			out[i] = uint64(v)
		}
	case Float32:
		for i, v := range must(x.Float32s())(t) {
			out[i] = uint64(math.Float32bits(v))
		}
	case Float64:
		for i, v := range must(x.Float64s())(t) {
			out[i] = math.Float64bits(v)
		}
	default:
		t.Fatalf("no reader for %v", x.DType())
	}
	return out
}

func wantSameTensor(t testing.TB, fused, eager *Tensor) {
	t.Helper()
	if fused.DType() != eager.DType() {
		t.Fatalf("dtype: fused %v, eager %v", fused.DType(), eager.DType())
	}
	wantShape(t, fused, eager.Shape()...)
	wantEqual(t, exprBits(t, fused), exprBits(t, eager))
}

// wantSameResult compares a fused result with the eager chain's: the same
// tensor, or the same error.
func wantSameResult(t testing.TB, what string, fused *Tensor, ferr error, eager *Tensor, eerr error) {
	t.Helper()
	switch {
	case ferr == nil && eerr == nil:
		wantSameTensor(t, fused, eager)
	case ferr != nil && eerr != nil:
		var e *Error
		if !errors.As(eerr, &e) {
			t.Fatalf("%s: eager error %T", what, eerr)
		}
		wantErr(t, ferr, e.Code, e.Message, &e.Detail)
	default:
		t.Fatalf("%s: fused %v, eager %v", what, ferr, eerr)
	}
}

// exprInput is a tensor of shape and dtype with values in [-4, 4) and, for
// floating dtypes, NaN, infinities and signed zeros first.
func exprInput(t testing.TB, dtype DType, seed uint64, shape ...int64) *Tensor {
	t.Helper()
	n := numel(shape)
	v := make([]float64, n)
	s := seed*6364136223846793005 + 1442695040888963407
	for i := range v {
		s = s*6364136223846793005 + 1442695040888963407
		v[i] = float64(s>>40)/float64(1<<24)*8 - 4
	}
	if dtype == Float16 || dtype == BFloat16 || dtype == Float32 || dtype == Float64 {
		specials := []float64{math.NaN(), math.Copysign(0, -1), 0, math.Inf(1), math.Inf(-1), 1, 0.5}
		copy(v, specials[:min(len(specials), n)])
	}
	f := must(FromFloat64s(v, shape...))(t)
	defer f.Close()
	x := must(f.To(dtype))(t)
	closeAll(t, x)
	return x
}

// exprLeaky is where(x > 0, x, 0.1 * x) by the builders.
func exprLeaky(t testing.TB) *Expr {
	t.Helper()
	e := must(NewExpr(1))(t)
	t.Cleanup(func() { e.Close() })
	x := must(e.Input(0))(t)
	zero := must(e.Number(IntScalar(0)))(t)
	pos := must(e.Call("gt", x, zero))(t)
	slope := must(e.Number(FloatScalar(0.1)))(t)
	neg := must(e.Call("mul", slope, x))(t)
	must(e.Call("where", pos, x, neg))(t)
	return e
}

func leakyEager(x *Tensor) (*Tensor, error) {
	cond, err := GtScalar(x, IntScalar(0))
	if err != nil {
		return nil, err
	}
	defer cond.Close()
	neg, err := RBinaryScalar(OpMul, FloatScalar(0.1), x)
	if err != nil {
		return nil, err
	}
	defer neg.Close()
	return Where(cond, x, neg)
}

// exprClamp is clamp((a - b) * c, 0, 1) by the builders.
func exprClamp(t testing.TB) *Expr {
	t.Helper()
	e := must(NewExpr(3))(t)
	t.Cleanup(func() { e.Close() })
	a, b, c := must(e.Input(0))(t), must(e.Input(1))(t), must(e.Input(2))(t)
	d := must(e.Binary(OpSub, a, b))(t)
	m := must(e.Call("mul", d, c))(t)
	lo := must(e.Number(IntScalar(0)))(t)
	hi := must(e.Number(IntScalar(1)))(t)
	must(e.Call("clamp", m, lo, hi))(t)
	return e
}

func clampChainEager(a, b, c *Tensor) (*Tensor, error) {
	d, err := Sub(a, b)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	m, err := Mul(d, c)
	if err != nil {
		return nil, err
	}
	defer m.Close()
	lo, hi := IntScalar(0), IntScalar(1)
	return ClampScalar(m, &lo, &hi)
}

type exprOperand struct {
	dtype DType
	shape []int64
}

// Shapes and dtypes of (a, b, c), broadcast against each other, with 20000
// elements or more where the evaluation runs in several tiles.
var exprClampCases = [][3]exprOperand{
	{{Float32, []int64{20, 1, 1000}}, {Float16, []int64{1, 3, 1}}, {Int32, []int64{1000}}},
	{{Int16, []int64{4, 1}}, {Uint8, []int64{1, 3}}, {BFloat16, []int64{3}}},
	{{Float64, []int64{2, 3, 4}}, {Float32, nil}, {Int64, []int64{1, 4}}},
	{{Int32, []int64{7, 1, 3}}, {Int8, []int64{5, 1}}, {Bool, []int64{3}}},
	{{BFloat16, []int64{300, 70}}, {Float16, []int64{70}}, {Float16, []int64{300, 1}}},
}

func exprClampInputs(t testing.TB, k int) (a, b, c *Tensor) {
	o := exprClampCases[k]
	return exprInput(t, o[0].dtype, uint64(1+k), o[0].shape...),
		exprInput(t, o[1].dtype, uint64(100+k), o[1].shape...),
		exprInput(t, o[2].dtype, uint64(200+k), o[2].shape...)
}

func TestExprLeakyReLU(t *testing.T) {
	e := exprLeaky(t)
	if n := e.NumNodes(); n != 6 {
		t.Fatalf("NumNodes %d, want 6", n)
	}
	for _, dtype := range []DType{Float16, BFloat16, Float32, Float64, Int32, Int64, Uint8, Bool} {
		for _, shape := range [][]int64{{5, 1, 7}, {130, 257}, nil} {
			x := exprInput(t, dtype, 7, shape...)
			fused, ferr := e.Eval(x)
			eager, eerr := leakyEager(x)
			wantSameResult(t, fmt.Sprintf("%v %v", dtype, shape), fused, ferr, eager, eerr)
			closeAll(t, fused, eager)
		}
		// A broadcast (stride-0) view as the input.
		x := exprInput(t, dtype, 11, 3, 1)
		wide := must(x.Expand(3, 40))(t)
		fused, ferr := e.Eval(wide)
		eager, eerr := leakyEager(wide)
		wantSameResult(t, fmt.Sprintf("%v expanded", dtype), fused, ferr, eager, eerr)
		closeAll(t, wide, fused, eager)
	}
}

func TestExprClampChain(t *testing.T) {
	e := exprClamp(t)
	if n := e.NumNodes(); n != 8 {
		t.Fatalf("NumNodes %d, want 8", n)
	}
	for k := range exprClampCases {
		a, b, c := exprClampInputs(t, k)
		fused, ferr := e.Eval(a, b, c)
		eager, eerr := clampChainEager(a, b, c)
		wantSameResult(t, fmt.Sprintf("case %d", k), fused, ferr, eager, eerr)
		closeAll(t, fused, eager)
	}
}

func TestExprEvalOut(t *testing.T) {
	e := exprClamp(t)
	a, b, c := exprClampInputs(t, 0)
	want := must(clampChainEager(a, b, c))(t)
	out := must(Zeros(Float32, 20, 3, 1000))(t)
	closeAll(t, want, out)
	ok(t, e.EvalOut(out, a, b, c))
	wantSameTensor(t, out, want)

	// Another dtype where the last op's out= form takes it (sub's does).
	sub := must(NewExpr(2))(t)
	defer sub.Close()
	must(sub.Call("sub", must(sub.Input(0))(t), must(sub.Input(1))(t)))(t)
	out64 := must(Zeros(Float64, 20, 3, 1000))(t)
	eager64 := must(Zeros(Float64, 20, 3, 1000))(t)
	closeAll(t, out64, eager64)
	ok(t, sub.EvalOut(out64, a, b))
	ok(t, SubOut(a, b, eager64))
	wantSameTensor(t, out64, eager64)

	// A wrong shape and dtypes clamp's out= form refuses: the eager out=
	// errors, and out unchanged.
	lo, hi := IntScalar(0), IntScalar(1)
	outs := []exprOperand{{Float32, []int64{3, 1000}}, {Int32, []int64{20, 3, 1000}}, {Float64, []int64{20, 3, 1000}}}
	for _, o := range outs {
		bad := must(Zeros(o.dtype, o.shape...))(t)
		ok(t, BinaryScalarInPlace(OpAdd, bad, IntScalar(7)))
		eagerOut := must(Zeros(o.dtype, o.shape...))(t)
		closeAll(t, bad, eagerOut)
		ferr := e.EvalOut(bad, a, b, c)
		eerr := ClampScalarOut(want, &lo, &hi, eagerOut)
		wantSameResult(t, fmt.Sprintf("out %v", o), nil, ferr, nil, eerr)
		got := must(bad.To(Float64))(t)
		closeAll(t, got)
		for i, v := range must(got.Float64s())(t) {
			if v != 7 {
				t.Fatalf("out changed at %d: %v", i, v)
			}
		}
	}
}

func TestExprDtypeErrorIsTheEagerOpsError(t *testing.T) {
	// (a + b) & b on float32: bitwise_and refuses floating dtypes.
	e := must(NewExpr(2))(t)
	defer e.Close()
	a, b := must(e.Input(0))(t), must(e.Input(1))(t)
	s := must(e.Binary(OpAdd, a, b))(t)
	must(e.Call("bitwise_and", s, b))(t)
	ta := exprInput(t, Float32, 1, 2, 3)
	tb := exprInput(t, Float32, 2, 3)
	sum := must(Add(ta, tb))(t)
	closeAll(t, sum)
	_, eerr := BitwiseAnd(sum, tb)
	fused, ferr := e.Eval(ta, tb)
	if !errors.Is(ferr, ErrDtype) {
		t.Fatalf("want ErrDtype, got %v", ferr)
	}
	wantSameResult(t, "bitwise_and", fused, ferr, nil, eerr)

	// On a Context: the same text.
	c := NewContext()
	defer c.Close()
	fused, ferr = c.EvalExpr(e, ta, tb)
	wantSameResult(t, "bitwise_and on a Context", fused, ferr, nil, eerr)

	// A broadcast error, from the first op that fails.
	tc := exprInput(t, Float32, 3, 4)
	_, eerr = Add(ta, tc)
	fused, ferr = e.Eval(ta, tc)
	if !errors.Is(ferr, ErrNotBroadcastable) {
		t.Fatalf("want ErrNotBroadcastable, got %v", ferr)
	}
	wantSameResult(t, "broadcast", fused, ferr, nil, eerr)
}

func TestExprInputCountAndBuilderErrors(t *testing.T) {
	e := exprClamp(t)
	a := exprInput(t, Float32, 1, 3)
	for _, inputs := range [][]*Tensor{{a}, {a, a, a, a}, nil} {
		_, err := e.Eval(inputs...)
		wantErr(t, err, ErrInvalidArgument, "", nil)
	}
	out := must(Zeros(Float32, 3))(t)
	closeAll(t, out)
	wantErr(t, e.EvalOut(out, a), ErrInvalidArgument, "", nil)

	empty := must(NewExpr(1))(t)
	defer empty.Close()
	if empty.NumNodes() != 0 {
		t.Fatal("a new Expr has nodes")
	}
	_, err := empty.Eval(a)
	wantErr(t, err, ErrInvalidArgument, "", nil)

	b := must(NewExpr(2))(t)
	defer b.Close()
	x := must(b.Input(0))(t)
	invalid := func(what string, _ Node, err error) {
		t.Helper()
		var e *Error
		if !errors.As(err, &e) || e.Code != ErrInvalidArgument || e.Message == "" {
			t.Errorf("%s: want ErrInvalidArgument with a message, got %v", what, err)
		}
	}
	n, err := b.Input(2)
	invalid("input out of range", n, err)
	n, err = b.Input(-1)
	invalid("negative input", n, err)
	n, err = b.Call("no_such_op", x)
	invalid("unknown op", n, err)
	n, err = b.Call("add", x)
	invalid("too few operands", n, err)
	n, err = b.Call("neg", x, x)
	invalid("too many operands", n, err)
	n, err = b.Call("neg", Node(5))
	invalid("a node not made yet", n, err)
	_, err = NewExpr(MaxExprNodes + 1)
	invalid("too many inputs", 0, err)
	_, err = NewExpr(-1)
	invalid("negative input count", 0, err)
	if b.NumNodes() != 1 {
		t.Fatalf("failed builders added nodes: %d", b.NumNodes())
	}
	if y := must(b.Unary(UnaryNeg, x))(t); y != 1 {
		t.Fatalf("second node is %d", y)
	}
}

func TestExprContext(t *testing.T) {
	e := must(NewExpr(2))(t)
	defer e.Close()
	a, b := must(e.Input(0))(t), must(e.Input(1))(t)
	must(e.Call("add", a, b))(t)
	ta := exprInput(t, Float32, 1, 3, 1)
	tb := exprInput(t, Float32, 2, 3)

	c := NewContext()
	defer c.Close()
	ok(t, c.SetBroadcastPolicy(PolicyError))
	_, eerr := c.Add(ta, tb)
	fused, ferr := c.EvalExpr(e, ta, tb)
	if !errors.Is(ferr, ErrPolicy) {
		t.Fatalf("want ErrPolicy, got %v", ferr)
	}
	wantSameResult(t, "policy", fused, ferr, nil, eerr)
	out := must(Zeros(Float32, 3, 3))(t)
	closeAll(t, out)
	wantErr(t, c.EvalExprOut(e, out, ta, tb), ErrPolicy, "", nil)

	// Default() allows it.
	fused = must(e.Eval(ta, tb))(t)
	eager := must(Add(ta, tb))(t)
	closeAll(t, fused, eager)
	wantSameTensor(t, fused, eager)
	ok(t, c.SetBroadcastPolicy(PolicyAllow))
	ok(t, c.EvalExprOut(e, out, ta, tb))
	wantSameTensor(t, out, eager)
}

func TestExprConcurrentEvalAndClose(t *testing.T) {
	e := exprClamp(t)
	a, b, c := exprClampInputs(t, 0)
	want := must(clampChainEager(a, b, c))(t)
	closeAll(t, want)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := e.Eval(a, b, c)
			if err != nil {
				errs <- err
				return
			}
			defer got.Close()
			if fmt.Sprint(exprBits(t, got)) != fmt.Sprint(exprBits(t, want)) {
				errs <- errors.New("a concurrent evaluation differs")
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}

	ok(t, e.Close())
	ok(t, e.Close())
	_, err := e.Eval(a, b, c)
	wantErr(t, err, ErrInvalidArgument, "use of closed Expr", nil)
	_, err = e.Input(0)
	wantErr(t, err, ErrInvalidArgument, "use of closed Expr", nil)
	if e.NumNodes() != 0 {
		t.Fatal("a closed Expr has nodes")
	}
	var nilExpr *Expr
	_, err = nilExpr.Eval(a)
	wantErr(t, err, ErrInvalidArgument, "nil *Expr", nil)
}

// Parsing needs bc_expr_parse, which lands separately; until then these fail
// with "bc_expr_parse: not built yet".
func TestParseExprMatchesTheBuilders(t *testing.T) {
	p := must(ParseExpr("where(x > 0, x, 0.1 * x)", "x"))(t)
	defer p.Close()
	x := exprInput(t, BFloat16, 5, 130, 257)
	fused, ferr := p.Eval(x)
	eager, eerr := leakyEager(x)
	wantSameResult(t, "leaky", fused, ferr, eager, eerr)
	closeAll(t, fused, eager)

	q := must(ParseExpr("clamp((a - b) * c, 0, 1)", "a", "b", "c"))(t)
	defer q.Close()
	for k := range exprClampCases {
		a, b, c := exprClampInputs(t, k)
		fused, ferr := q.Eval(a, b, c)
		eager, eerr := clampChainEager(a, b, c)
		wantSameResult(t, fmt.Sprintf("case %d", k), fused, ferr, eager, eerr)
		closeAll(t, fused, eager)
	}
}

func TestParseExprErrors(t *testing.T) {
	_, err := ParseExpr("where(x > 0, x", "x")
	wantErr(t, err, ErrInvalidArgument, "", nil)
	var e *Error
	if errors.As(err, &e) && !strings.Contains(e.Message, "column") {
		t.Errorf("no position in %q", e.Message)
	}
	_, err = ParseExpr("x + y", "x")
	wantErr(t, err, ErrInvalidArgument, "", nil)
}
