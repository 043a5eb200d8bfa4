package bcast

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// PyTorch's answers, written by tests/gen_result_types.py from
// torch.result_type, PyTorch's N-ary promotion and torch.can_cast.
func torchTable(t *testing.T, kind string) [][]string {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "tests", "data", "result_types.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows [][]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) > 0 && fields[0] == kind {
			rows = append(rows, fields[1:])
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

var tableNames = []string{"bool", "uint8", "int8", "int16", "int32", "int64", "float16",
	"bfloat16", "float32", "float64"}

func dtypeNamed(t *testing.T, name string) DType {
	for i, n := range tableNames {
		if n == name {
			return DType(i)
		}
	}
	t.Fatalf("unknown dtype %q", name)
	return 0
}

func TestResultTypeMatchesPyTorch(t *testing.T) {
	rows := torchTable(t, "rt")
	if len(rows) != 23*23+2300 {
		t.Fatalf("%d rows", len(rows))
	}
	for _, row := range rows {
		ops, want := row[:len(row)-1], dtypeNamed(t, row[len(row)-1])
		var ts []*Tensor
		var ss []Scalar
		for _, op := range ops {
			kind, what, _ := strings.Cut(op, ":")
			switch kind {
			case "T", "Z":
				var shape []int64
				if kind == "T" {
					shape = []int64{2}
				}
				x, err := Zeros(dtypeNamed(t, what), shape...)
				if err != nil {
					t.Fatal(err)
				}
				ts = append(ts, x)
			default:
				ss = append(ss, map[string]Scalar{"bool": BoolScalar(true), "int": IntScalar(3),
					"float": FloatScalar(2.5)}[what])
			}
		}
		got, err := ResultType(ts, ss)
		if err != nil || got != want {
			t.Errorf("%v: got %v, %v; PyTorch %v", ops, got, err, want)
		}
		for _, x := range ts {
			x.Close()
		}
	}
}

func TestCanCastMatchesPyTorch(t *testing.T) {
	rows := torchTable(t, "cc")
	if len(rows) != 100 {
		t.Fatalf("%d rows", len(rows))
	}
	for _, row := range rows {
		if got := CanCast(dtypeNamed(t, row[0]), dtypeNamed(t, row[1])); got != (row[2] == "1") {
			t.Errorf("CanCast(%s, %s) = %v", row[0], row[1], got)
		}
	}
	if CanCast(DType(10), Float32) {
		t.Error("an unknown dtype casts")
	}
}

func TestResultTypeErrors(t *testing.T) {
	_, err := ResultType(nil, nil)
	if e, ok := err.(*Error); !ok || e.Code != ErrInvalidArgument || !strings.Contains(e.Message, "at least one") {
		t.Fatalf("no operands: %v", err)
	}
	bad := Scalar{kind: 7}
	if _, err := ResultType(nil, []Scalar{bad}); err == nil || !strings.Contains(err.Error(), "unknown kind 7") {
		t.Fatalf("bad kind: %v", err)
	}
	x, _ := Zeros(Int32, 3)
	defer x.Close()
	if got, err := ResultType([]*Tensor{x}, []Scalar{FloatScalar(0.5)}); err != nil || got != Float32 {
		t.Fatalf("int32 * 0.5: %v %v", got, err)
	}
	if !x.IsWritable() {
		t.Error("a tensor bcast made is not writable")
	}
	closed, _ := Zeros(Int32, 3)
	closed.Close()
	if closed.IsWritable() {
		t.Error("a closed tensor is writable")
	}
	if _, err := ResultType([]*Tensor{closed}, nil); err == nil {
		t.Error("a closed tensor was accepted")
	}
}
