/* C entry points that take enum arguments as plain ints. A C caller may pass
 * any int where the header has an enum; C++ may not even hold such a value
 * (it is undefined behaviour), so the fuzz targets pass them through C. */
#include "bcast/bcast.h"

bc_status fuzz_tensor_wrap(int dtype, const int64_t* shape, const int64_t* strides, size_t ndim,
                           void* data, size_t nbytes, bc_deleter deleter, void* ctx,
                           bc_tensor** out) {
  return bc_tensor_wrap((bc_dtype)dtype, shape, strides, ndim, data, nbytes, deleter, ctx, out);
}
bc_status fuzz_binary(int op, const bc_tensor* a, const bc_tensor* b, bc_tensor** out) {
  return bc_binary((bc_op)op, a, b, out);
}
bc_status fuzz_binary_out(int op, const bc_tensor* a, const bc_tensor* b, bc_tensor* out) {
  return bc_binary_out((bc_op)op, a, b, out);
}
bc_status fuzz_binary_(int op, bc_tensor* self, const bc_tensor* other) {
  return bc_binary_((bc_op)op, self, other);
}
bc_status fuzz_binary_alpha(int op, const bc_tensor* a, const bc_tensor* b, double alpha,
                            bc_tensor** out) {
  return bc_binary_alpha((bc_op)op, a, b, alpha, out);
}
bc_status fuzz_binary_alpha_out(int op, const bc_tensor* a, const bc_tensor* b, double alpha,
                                bc_tensor* out) {
  return bc_binary_alpha_out((bc_op)op, a, b, alpha, out);
}
bc_status fuzz_binary_alpha_(int op, bc_tensor* self, const bc_tensor* other, double alpha) {
  return bc_binary_alpha_((bc_op)op, self, other, alpha);
}
bc_status fuzz_unary(int op, const bc_tensor* x, bc_tensor** out) {
  return bc_unary((bc_unary_op)op, x, out);
}
bc_status fuzz_unary_out(int op, const bc_tensor* x, bc_tensor* out) {
  return bc_unary_out((bc_unary_op)op, x, out);
}
bc_status fuzz_unary_(int op, bc_tensor* self) { return bc_unary_((bc_unary_op)op, self); }
bc_status fuzz_unary_ex(int op, const bc_tensor* x, const bc_unary_params* params,
                        bc_tensor** out) {
  return bc_unary_ex((bc_unary_op)op, x, params, out);
}
bc_status fuzz_unary_ex_out(int op, const bc_tensor* x, const bc_unary_params* params,
                            bc_tensor* out) {
  return bc_unary_ex_out((bc_unary_op)op, x, params, out);
}
bc_status fuzz_unary_ex_(int op, bc_tensor* self, const bc_unary_params* params) {
  return bc_unary_ex_((bc_unary_op)op, self, params);
}
bc_status fuzz_to(const bc_tensor* x, int dtype, bc_tensor** out) {
  return bc_to(x, (bc_dtype)dtype, out);
}
bc_status fuzz_reduce_ex(int op, const bc_tensor* x, const int64_t* dims, size_t ndims, int keepdim,
                         const bc_reduce_params* params, bc_tensor** out) {
  return bc_reduce_ex((bc_reduce_op)op, x, dims, ndims, keepdim, params, out);
}
bc_status fuzz_reduce_ex_out(int op, const bc_tensor* x, const int64_t* dims, size_t ndims,
                             int keepdim, const bc_reduce_params* params, bc_tensor* out) {
  return bc_reduce_ex_out((bc_reduce_op)op, x, dims, ndims, keepdim, params, out);
}
