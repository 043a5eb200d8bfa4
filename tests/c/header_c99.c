/* Compile-only check that the public header is valid C99 (-std=c99 -pedantic
 * -Werror): no C++ or C11 constructs may slip into the contract. */
#include "bcast/bcast.h"

/* A use of each typedef keeps -pedantic from seeing an empty unit. */
int bcast_header_c99_check(void);
int bcast_header_c99_check(void) {
  bc_status st = BC_OK;
  bc_dtype dt = BC_FLOAT64;
  bc_op op = BC_SHIFT_RIGHT;
  bc_policy pol = BC_POLICY_ERROR;
  bc_error_detail det;
  bc_deleter del = 0;
  bc_warning_fn fn = 0;
  bc_tensor* t = 0;
  det.code = st;
  det.dim = BC_MAX_DIMS;
  return (int)det.code + (int)dt + (int)op + (int)pol + BC_OP_COUNT + (del == 0) + (fn == 0) +
         (t == 0) + det.dim;
}
