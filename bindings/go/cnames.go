package bcast

/*
#include "gobc.h"
*/
import "C"

// The library's own names, for the tests that check that the Go tables
// (Code.String, DType.String, DType.Size, Op.String, UnaryOp.String,
// ReduceOp.String) agree with it.

func cStatusString(c Code) string { return C.GoString(C.bc_status_string(C.bc_status(c))) }
func cDTypeName(d DType) string   { return C.GoString(C.bc_dtype_name(C.bc_dtype(d))) }
func cDTypeSize(d DType) int      { return int(C.bc_dtype_size(C.bc_dtype(d))) }
func cOpName(op Op) string        { return C.GoString(C.bc_op_name(C.bc_op(op))) }
func cUnaryOpName(op UnaryOp) string {
	return C.GoString(C.bc_unary_op_name(C.bc_unary_op(op)))
}
func cReduceOpName(op ReduceOp) string {
	return C.GoString(C.bc_reduce_op_name(C.bc_reduce_op(op)))
}

// The C library's process-wide settings, which the Go package must leave
// alone (tests check that it does).
func cProcessPolicy() Policy         { return Policy(C.bc_get_broadcast_policy()) }
func cProcessBroadcastWarning() bool { return C.bc_get_broadcast_warning() != 0 }
func cProcessWarningsAsErrors() bool { return C.bc_get_warnings_as_errors() != 0 }
