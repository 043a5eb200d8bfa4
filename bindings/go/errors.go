package bcast

import "strconv"

// Code is a bcast status code (the C bc_status). The non-zero codes are also
// the sentinel errors of this package: every error returned here is an
// *Error whose Unwrap gives its Code, so
//
//	errors.Is(err, bcast.ErrNotBroadcastable)
//
// tells what kind of failure err is.
type Code int32

// Status codes, with the values of the C enum bc_status.
const (
	OK                  Code = 0  // BC_OK; never the code of an *Error.
	ErrInvalidArgument  Code = 1  // NULL/closed tensor, bad enum, negative size, bad stride...
	ErrNotBroadcastable Code = 2  // Shapes cannot be broadcast together.
	ErrShapeMismatch    Code = 3  // Out/in-place tensor has the wrong shape; bad expand.
	ErrDtype            Code = 4  // Dtype not supported by the op, or unsafe cast to out.
	ErrOverlap          Code = 5  // Written tensor overlaps itself or an input.
	ErrOutOfMemory      Code = 6  // An allocation failed.
	ErrOverflow         Code = 7  // Element or byte count overflows.
	ErrOutOfBounds      Code = 8  // An element would fall outside a buffer.
	ErrDivisionByZero   Code = 9  // Integer division or remainder by zero.
	ErrInternal         Code = 10 // A bug in bcast.
	ErrPolicy           Code = 11 // Refused by the broadcast policy, or a warning raised as error.
)

var codeNames = [...]string{
	"BC_OK",
	"BC_ERR_INVALID_ARGUMENT",
	"BC_ERR_NOT_BROADCASTABLE",
	"BC_ERR_SHAPE_MISMATCH",
	"BC_ERR_DTYPE",
	"BC_ERR_OVERLAP",
	"BC_ERR_OUT_OF_MEMORY",
	"BC_ERR_OVERFLOW",
	"BC_ERR_OUT_OF_BOUNDS",
	"BC_ERR_DIVISION_BY_ZERO",
	"BC_ERR_INTERNAL",
	"BC_ERR_POLICY",
}

// String returns the C name of the code, as bc_status_string spells it
// ("BC_ERR_NOT_BROADCASTABLE"); unknown codes give "BC_ERR_UNKNOWN".
func (c Code) String() string {
	if c >= 0 && int(c) < len(codeNames) {
		return codeNames[c]
	}
	return "BC_ERR_UNKNOWN"
}

// Error makes a Code usable as a sentinel error; it is the same as String.
func (c Code) Error() string { return c.String() }

// Detail is the machine-readable part of a broadcasting failure; fields that
// do not apply are -1.
type Detail struct {
	Dim   int   // Failing dimension as PyTorch numbers it in the message.
	SizeA int64 // First conflicting size (tensor a / expanded size).
	SizeB int64 // Second conflicting size (tensor b / existing size).
}

// Error is the error of every failed call. Message is the library's text,
// byte-identical to PyTorch's where PyTorch has one, or the binding's for
// errors found on the Go side before calling C (a closed tensor, a data
// slice of the wrong length); neither has a prefix, as in the Rust binding.
// Tell them apart, where it matters, by Code.
type Error struct {
	Code    Code
	Message string
	Detail  Detail
}

// Error returns the message alone, so that it reads like PyTorch's.
func (e *Error) Error() string {
	if e.Message == "" {
		return e.Code.Error()
	}
	return e.Message
}

// Unwrap returns the code, which is what errors.Is compares with the
// sentinels.
func (e *Error) Unwrap() error { return e.Code }

// goError is an error found on the Go side, before any C call.
func goError(code Code, msg string) *Error {
	return &Error{Code: code, Message: msg, Detail: Detail{Dim: -1, SizeA: -1, SizeB: -1}}
}

// formatShape writes a shape as PyTorch prints sizes: "[1, 3, 1]".
func formatShape(shape []int64) string {
	b := []byte{'['}
	for i, d := range shape {
		if i > 0 {
			b = append(b, ',', ' ')
		}
		b = strconv.AppendInt(b, d, 10)
	}
	return string(append(b, ']'))
}
