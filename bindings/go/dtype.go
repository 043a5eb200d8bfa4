package bcast

import (
	"math"
	"strconv"
)

// DType is an element type, with the values of the C enum bc_dtype.
type DType int32

// Element types. Float16 and BFloat16 are held in Go as their uint16 bits.
const (
	Bool     DType = 0
	Uint8    DType = 1
	Int8     DType = 2
	Int16    DType = 3
	Int32    DType = 4
	Int64    DType = 5
	Float16  DType = 6
	BFloat16 DType = 7
	Float32  DType = 8
	Float64  DType = 9
)

var dtypeInfo = [...]struct {
	name   string // the constant's name
	torch  string // PyTorch's Python name
	scalar string // PyTorch's ScalarType name, in its messages and bc_dtype_name
	size   int
}{
	{"Bool", "torch.bool", "Bool", 1},
	{"Uint8", "torch.uint8", "Byte", 1},
	{"Int8", "torch.int8", "Char", 1},
	{"Int16", "torch.int16", "Short", 2},
	{"Int32", "torch.int32", "Int", 4},
	{"Int64", "torch.int64", "Long", 8},
	{"Float16", "torch.float16", "Half", 2},
	{"BFloat16", "torch.bfloat16", "BFloat16", 2},
	{"Float32", "torch.float32", "Float", 4},
	{"Float64", "torch.float64", "Double", 8},
}

func (d DType) valid() bool { return d >= 0 && int(d) < len(dtypeInfo) }

// String returns the constant's name ("Float32", "Int64", "Bool",
// "Float16", ...), or "DType(n)" for an unknown value.
func (d DType) String() string {
	if d.valid() {
		return dtypeInfo[d].name
	}
	return "DType(" + strconv.Itoa(int(d)) + ")"
}

// TorchName returns PyTorch's Python name ("torch.float32", "torch.int64",
// ...), or "" for an unknown value.
func (d DType) TorchName() string {
	if d.valid() {
		return dtypeInfo[d].torch
	}
	return ""
}

// ScalarTypeName returns the name PyTorch's error messages print, which the
// library's messages repeat ("Float", "Long", "Half", ...; C's
// bc_dtype_name), or "Unknown".
func (d DType) ScalarTypeName() string {
	if d.valid() {
		return dtypeInfo[d].scalar
	}
	return "Unknown"
}

// describe names d in the binding's own messages: "Float32 (torch.float32)".
func (d DType) describe() string {
	if d.valid() {
		return d.String() + " (" + d.TorchName() + ")"
	}
	return d.String()
}

// Size returns the size in bytes of one element, or 0 for an unknown value.
func (d DType) Size() int {
	if d.valid() {
		return dtypeInfo[d].size
	}
	return 0
}

// F16FromFloat32 returns the IEEE binary16 bits nearest to f (ties to even;
// NaN stays NaN).
func F16FromFloat32(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int32(b>>23) & 0xff
	man := b & 0x7fffff
	if exp == 0xff {
		if man != 0 {
			return sign | 0x7e00
		}
		return sign | 0x7c00
	}
	e := exp - 127 + 15
	if e >= 0x1f {
		return sign | 0x7c00
	}
	if e <= 0 {
		if e < -10 {
			return sign
		}
		man |= 0x800000
		shift := uint32(14 - e)
		half := man >> shift
		rem := man & (1<<shift - 1)
		mid := uint32(1) << (shift - 1)
		if rem > mid || (rem == mid && half&1 == 1) {
			half++
		}
		return sign | uint16(half)
	}
	half := uint32(e)<<10 | man>>13
	rem := man & 0x1fff
	if rem > 0x1000 || (rem == 0x1000 && half&1 == 1) {
		half++ // may carry into the exponent, up to infinity: correct
	}
	return sign | uint16(half)
}

// F16ToFloat32 returns the value of IEEE binary16 bits.
func F16ToFloat32(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	man := uint32(h & 0x3ff)
	switch {
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | man<<13)
	case exp == 0:
		v := float32(man) / (1 << 24)
		if sign != 0 {
			return -v
		}
		return v
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | man<<13)
}

// BF16FromFloat32 returns the bfloat16 bits nearest to f (ties to even;
// NaN stays NaN).
func BF16FromFloat32(f float32) uint16 {
	b := math.Float32bits(f)
	if b&0x7fffffff > 0x7f800000 {
		return uint16(b>>16) | 0x40
	}
	b += 0x7fff + (b>>16)&1
	return uint16(b >> 16)
}

// BF16ToFloat32 returns the value of bfloat16 bits.
func BF16ToFloat32(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }
