package bcast

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"sort"
	"strings"
	"testing"
)

// contextFree are the package-level functions that have no Context form:
// they make no C call on a context (constructors of Go values, conversions,
// versions), act on the C library's process-wide state (SetSIMDCap), or
// call C functions that have no context form (NewExpr, ParseExpr: C records
// their errors in the thread's slot).
var contextFree = map[string]bool{
	"NewContext": true, "Default": true,
	"BoolScalar": true, "IntScalar": true, "FloatScalar": true, "CanCast": true,
	"F16FromFloat32": true, "F16ToFloat32": true, "BF16FromFloat32": true, "BF16ToFloat32": true,
	"Version": true, "VersionString": true, "HeaderVersion": true,
	"SIMDTarget": true, "SetSIMDCap": true,
	"Param": true, "WithDType": true, "WithCorrection": true,
	"DTypeOf": true, "Row": true,
	"NewExpr": true, "ParseExpr": true,
}

// TestEveryFunctionIsAContextMethod checks doc.go's promise, read from the
// package's source: each package-level function that runs on Default() is
// also a method of Context. Go has no generic methods, so a generic
// function X has instead a generic function XOn taking the Context first.
func TestEveryFunctionIsAContextMethod(t *testing.T) {
	t.Parallel()
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi fs.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, 0)
	ok(t, err)
	funcs, methods := map[string]bool{}, map[string]bool{}
	generic, onForms := map[string]bool{}, map[string]bool{}
	for _, p := range pkgs {
		for _, f := range p.Files {
			for _, d := range f.Decls {
				fd, isFunc := d.(*ast.FuncDecl)
				if !isFunc || !fd.Name.IsExported() {
					continue
				}
				if fd.Recv == nil && fd.Type.TypeParams != nil {
					name := fd.Name.Name
					if strings.HasSuffix(name, "On") && takesContextFirst(fd) {
						onForms[strings.TrimSuffix(name, "On")] = true
					} else if !contextFree[name] {
						generic[name] = true
					}
					funcs[name] = true
					continue
				}
				if fd.Recv == nil {
					funcs[fd.Name.Name] = true
				} else if star, isPtr := fd.Recv.List[0].Type.(*ast.StarExpr); isPtr {
					if id, isIdent := star.X.(*ast.Ident); isIdent && id.Name == "Context" {
						methods[fd.Name.Name] = true
					}
				}
			}
		}
	}
	if len(funcs) < 100 || !methods["Add"] {
		t.Fatalf("read %d functions and %d Context methods: is the test in the package directory?", len(funcs), len(methods))
	}
	var missing, missingOn []string
	for f := range funcs {
		if generic[f] {
			if !onForms[f] {
				missingOn = append(missingOn, f)
			}
		} else if !methods[f] && !contextFree[f] && !onForms[strings.TrimSuffix(f, "On")] {
			missing = append(missing, f)
		}
	}
	sort.Strings(missing)
	sort.Strings(missingOn)
	if len(missing) > 0 {
		t.Errorf("package-level functions without a Context method: %s", strings.Join(missing, ", "))
	}
	if len(missingOn) > 0 {
		t.Errorf("generic functions without an On form taking the Context first: %s", strings.Join(missingOn, ", "))
	}
	if len(generic) == 0 {
		t.Error("found no generic function: is the check reading them?")
	}
	for f := range contextFree {
		if !funcs[f] {
			t.Errorf("contextFree names %s, which is not a package-level function", f)
		}
	}
}

// takesContextFirst reports whether fd's first parameter is a *Context.
func takesContextFirst(fd *ast.FuncDecl) bool {
	params := fd.Type.Params.List
	if len(params) == 0 {
		return false
	}
	star, isPtr := params[0].Type.(*ast.StarExpr)
	if !isPtr {
		return false
	}
	id, isIdent := star.X.(*ast.Ident)
	return isIdent && id.Name == "Context"
}

// TestContextScalarShortcuts runs the number shortcuts on a Context, against
// values worked out by hand, and checks that they use it (a closed one
// refuses them).
func TestContextScalarShortcuts(t *testing.T) {
	t.Parallel()
	c := NewContext()
	a := must(c.FromInt64s([]int64{1, 2, 3}, 3))(t)
	closeAll(t, a)
	for _, tc := range []struct {
		name string
		f    func(*Tensor, Scalar) (*Tensor, error)
		s    Scalar
		want []float64
	}{
		{"MulScalar", c.MulScalar, FloatScalar(0.5), []float64{0.5, 1, 1.5}},
		{"AddScalar", c.AddScalar, IntScalar(10), []float64{11, 12, 13}},
		{"SubScalar", c.SubScalar, IntScalar(1), []float64{0, 1, 2}},
		{"DivScalar", c.DivScalar, IntScalar(2), []float64{0.5, 1, 1.5}},
		{"PowScalar", c.PowScalar, IntScalar(2), []float64{1, 4, 9}},
		{"RemainderScalar", c.RemainderScalar, IntScalar(2), []float64{1, 0, 1}},
		{"MaximumScalar", c.MaximumScalar, IntScalar(2), []float64{2, 2, 3}},
	} {
		wantFloats(t, asFloat64s(t, c, must(tc.f(a, tc.s))(t)), tc.want)
	}
	for _, tc := range []struct {
		name string
		f    func(Scalar, *Tensor) (*Tensor, error)
		want []float64
	}{
		{"RSubScalar", c.RSubScalar, []float64{5, 4, 3}},
		{"RDivScalar", c.RDivScalar, []float64{6, 3, 2}},
		{"RPowScalar", c.RPowScalar, []float64{6, 36, 216}},
	} {
		wantFloats(t, asFloat64s(t, c, must(tc.f(IntScalar(6), a))(t)), tc.want)
	}
	ok(t, c.Close())
	_, err := c.MulScalar(a, IntScalar(2))
	wantErr(t, err, ErrInvalidArgument, "use of closed Context", nil)
	_, err = c.RSubScalar(IntScalar(2), a)
	wantErr(t, err, ErrInvalidArgument, "use of closed Context", nil)
}

// asFloat64s returns r's elements as float64 and closes r.
func asFloat64s(t testing.TB, c *Context, r *Tensor) []float64 {
	t.Helper()
	f := must(c.To(r, Float64))(t)
	defer f.Close()
	r.Close()
	return must(c.Float64s(f))(t)
}

// TestDTypeNames: String is the constant's own name (as Go prints it with
// %v), TorchName PyTorch's, and the binding's messages give both.
func TestDTypeNames(t *testing.T) {
	t.Parallel()
	want := map[DType][2]string{
		Bool: {"Bool", "torch.bool"}, Uint8: {"Uint8", "torch.uint8"}, Int8: {"Int8", "torch.int8"},
		Int16: {"Int16", "torch.int16"}, Int32: {"Int32", "torch.int32"}, Int64: {"Int64", "torch.int64"},
		Float16: {"Float16", "torch.float16"}, BFloat16: {"BFloat16", "torch.bfloat16"},
		Float32: {"Float32", "torch.float32"}, Float64: {"Float64", "torch.float64"},
	}
	for d, w := range want {
		if got := fmt.Sprint(d); got != w[0] {
			t.Errorf("DType %d prints %q, want %q", int(d), got, w[0])
		}
		if got := d.TorchName(); got != w[1] {
			t.Errorf("%v.TorchName() = %q, want %q", d, got, w[1])
		}
	}
	if s := DType(42).String(); s != "DType(42)" {
		t.Errorf("unknown dtype prints %q", s)
	}
	x := must(FromInt32s([]int32{1, 2}, 2))(t)
	closeAll(t, x)
	if s := x.String(); s != "Tensor(Int32, [2])" {
		t.Errorf("tensor prints %q", s)
	}
	_, err := x.Int64s()
	wantErr(t, err, ErrDtype, "tensor has dtype Int32 (torch.int32), not Int64 (torch.int64)", nil)
}

// TestReadInto reads into the caller's slices: every dtype, no allocation,
// and the refusals (wrong type, too short) leave the slice alone.
func TestReadInto(t *testing.T) {
	c := NewContext()
	t.Cleanup(func() { c.Close() })
	f := must(c.FromFloat32s([]float32{1, 2, 3, 4, 5, 6}, 2, 3))(t)
	closeAll(t, f)
	buf := make([]float32, 8)
	n := must(f.ReadInto(buf))(t)
	if n != 6 {
		t.Fatalf("ReadInto copied %d elements, want 6", n)
	}
	wantFloats(t, buf, []float32{1, 2, 3, 4, 5, 6, 0, 0})
	if a := testing.AllocsPerRun(20, func() { _, _ = c.ReadInto(f, buf) }); a > 1 {
		t.Errorf("ReadInto allocates %v times per call", a)
	}

	b := must(c.FromBools([]bool{true, false, true}, 3))(t)
	i16 := must(c.To(f, Int16))(t)
	h := must(c.To(f, Float16))(t)
	bf := must(c.To(f, BFloat16))(t)
	closeAll(t, b, i16, h, bf)
	bools := make([]bool, 3)
	must(c.ReadInto(b, bools))(t)
	wantEqual(t, bools, []bool{true, false, true})
	shorts := make([]int16, 6)
	must(i16.ReadInto(shorts))(t)
	wantEqual(t, shorts, []int16{1, 2, 3, 4, 5, 6})
	bits := make([]uint16, 6)
	must(h.ReadInto(bits))(t)
	wantEqual(t, bits, must(h.Float16Bits())(t))
	must(bf.ReadInto(bits))(t)
	wantEqual(t, bits, must(bf.BFloat16Bits())(t))

	keep := []float64{-1, -1, -1, -1, -1, -1}
	_, err := f.ReadInto(keep)
	wantErr(t, err, ErrDtype, "tensor has dtype Float32 (torch.float32), not Float64 (torch.float64)", nil)
	_, err = f.ReadInto(buf[:5])
	wantErr(t, err, ErrInvalidArgument, "a slice of 5 elements cannot hold a tensor of shape [2, 3] (6 elements)", nil)
	_, err = f.ReadInto([]string{"x"})
	wantErr(t, err, ErrInvalidArgument, "ReadInto cannot copy into a []string", nil)
	wantEqual(t, keep, []float64{-1, -1, -1, -1, -1, -1})
}
