/* The public headers compile as strict C99 (and twice in one translation
 * unit); linked with header_cxx17.cc, the two languages agree on every
 * symbol's linkage. */
#include <bcast/bcast.h>
#include <bcast/bcast.h>
#include <bcast/dlpack.h>
#include <bcast/dlpack.h>

int header_c99_check(void);

int header_c99_check(void) {
  bc_tensor* t = NULL;
  const int64_t shape[] = {2, 3};
  int ok = bc_tensor_zeros(BC_FLOAT32, shape, 2, &t) == BC_OK && bc_tensor_numel(t) == 6;
  bc_tensor_free(t);
  return ok && bc_version() == BC_VERSION_NUMBER;
}
