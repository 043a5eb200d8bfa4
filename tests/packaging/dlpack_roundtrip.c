/* DLPack interchange at the C level: a producer's tensor imported without
 * copying (and its deleter called exactly once), bcast tensors exported and
 * imported back, every dtype's mapping, the refusals that must leave the
 * producer's tensor alone, and read-only imports that refuse every write. */
#include <stdio.h>
#include <string.h>

#include <bcast/dlpack.h>

static int failures = 0;
#define CHECK(cond)                                            \
  do {                                                         \
    if (!(cond)) {                                             \
      fprintf(stderr, "%s:%d: CHECK(%s) failed; last error: %s\n", __FILE__, __LINE__, #cond, \
              bc_last_error());                                \
      failures++;                                              \
    }                                                          \
  } while (0)

/* A producer: a (5,1,4,1) float32 tensor over a static buffer, with an
 * unused leading element so that byte_offset matters. */
static float producer_buf[21];
static int64_t producer_shape[4] = {5, 1, 4, 1};
static int producer_deletes = 0;

static void producer_delete(DLManagedTensor* self) {
  (void)self;
  producer_deletes++;
}

static void producer_delete_v(DLManagedTensorVersioned* self) {
  (void)self;
  producer_deletes++;
}

static DLManagedTensor producer(void) {
  DLManagedTensor m;
  memset(&m, 0, sizeof m);
  for (int i = 0; i < 21; ++i) producer_buf[i] = (float)i - 1; /* element k is k */
  m.dl_tensor.data = producer_buf;
  m.dl_tensor.byte_offset = sizeof(float);
  m.dl_tensor.device.device_type = kDLCPU;
  m.dl_tensor.ndim = 4;
  m.dl_tensor.dtype.code = kDLFloat;
  m.dl_tensor.dtype.bits = 32;
  m.dl_tensor.dtype.lanes = 1;
  m.dl_tensor.shape = producer_shape;
  m.dl_tensor.strides = NULL; /* compact row-major */
  m.deleter = producer_delete;
  return m;
}

static void import_and_broadcast(void) {
  DLManagedTensor m = producer();
  bc_tensor *x = NULL, *y = NULL, *z = NULL;
  CHECK(bc_tensor_from_dlpack(&m, &x) == BC_OK);
  CHECK(bc_tensor_data(x) == (void*)(producer_buf + 1)); /* no copy */
  CHECK(bc_tensor_ndim(x) == 4 && bc_tensor_shape(x)[2] == 4 && bc_tensor_strides(x)[0] == 4);

  const float yv[3] = {100, 200, 300};
  const int64_t ys[3] = {3, 1, 1};
  CHECK(bc_tensor_from_data(BC_FLOAT32, ys, 3, yv, &y) == BC_OK);
  CHECK(bc_binary(BC_ADD, x, y, &z) == BC_OK);
  float zv[60];
  CHECK(bc_tensor_copy_to(z, zv, sizeof zv) == BC_OK);
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) CHECK(zv[(i * 3 + j) * 4 + k] == (float)(i * 4 + k) + yv[j]);

  /* In place writes reach the producer's memory. */
  const int64_t one[1] = {1};
  const float two = 2;
  bc_tensor* s = NULL;
  CHECK(bc_tensor_from_data(BC_FLOAT32, one, 1, &two, &s) == BC_OK);
  CHECK(bc_binary_(BC_MUL, x, s) == BC_OK);
  CHECK(producer_buf[1 + 7] == 14);

  bc_tensor* v = NULL;
  CHECK(bc_tensor_view(x, &v) == BC_OK);
  bc_tensor_free(x);
  CHECK(producer_deletes == 0); /* the view still holds it */
  bc_tensor_free(v);
  CHECK(producer_deletes == 1);
  bc_tensor_free(s);
  bc_tensor_free(z);
  bc_tensor_free(y);
}

static void refusals(void) {
  bc_tensor* t = (bc_tensor*)&t;
  DLManagedTensor m = producer();
  m.dl_tensor.device.device_type = kDLCUDA;
  CHECK(bc_tensor_from_dlpack(&m, &t) == BC_ERR_INVALID_ARGUMENT && t == NULL);

  m = producer();
  m.dl_tensor.dtype.code = kDLComplex;
  m.dl_tensor.dtype.bits = 64;
  CHECK(bc_tensor_from_dlpack(&m, &t) == BC_ERR_DTYPE);
  m.dl_tensor.dtype.code = kDLFloat;
  m.dl_tensor.dtype.bits = 32;
  m.dl_tensor.dtype.lanes = 4;
  CHECK(bc_tensor_from_dlpack(&m, &t) == BC_ERR_DTYPE);

  m = producer();
  int64_t neg[4] = {-4, 4, 1, 1};
  m.dl_tensor.strides = neg;
  m.dl_tensor.byte_offset = 17 * sizeof(float);
  CHECK(bc_tensor_from_dlpack(&m, &t) == BC_ERR_INVALID_ARGUMENT);

  CHECK(bc_tensor_from_dlpack(NULL, &t) == BC_ERR_INVALID_ARGUMENT);
  m = producer();
  CHECK(bc_tensor_from_dlpack(&m, NULL) == BC_ERR_INVALID_ARGUMENT);

  DLManagedTensorVersioned mv;
  memset(&mv, 0, sizeof mv);
  mv.version.major = 2;
  mv.deleter = producer_delete_v;
  CHECK(bc_tensor_from_dlpack_versioned(&mv, &t) == BC_ERR_INVALID_ARGUMENT);

  CHECK(producer_deletes == 1); /* none of the refusals called a deleter */
}

/* Writes into a read-only tensor (or any view of it) are refused, with the
 * message saying so, and leave the producer's memory and out= tensors as
 * they were; reading it works. */
static int refused_read_only(bc_status st) {
  return st == BC_ERR_INVALID_ARGUMENT && strstr(bc_last_error(), "read-only") != NULL;
}

static void read_only_import(void) {
  DLManagedTensorVersioned mv;
  memset(&mv, 0, sizeof mv);
  mv.version.major = 1;
  mv.flags = DLPACK_FLAG_BITMASK_READ_ONLY;
  mv.deleter = producer_delete_v;
  mv.dl_tensor = producer().dl_tensor;
  float before[21];
  memcpy(before, producer_buf, sizeof before);
  const int deletes = producer_deletes;

  bc_tensor *ro = NULL, *view = NULL, *ex = NULL, *one = NULL, *sum = NULL, *copy = NULL;
  CHECK(bc_tensor_from_dlpack_versioned(&mv, &ro) == BC_OK);
  if (!ro) return;
  CHECK(bc_tensor_is_writable(ro) == 0);
  CHECK(bc_tensor_view(ro, &view) == BC_OK && bc_tensor_is_writable(view) == 0);
  const int64_t wide[5] = {2, 5, 1, 4, 1};
  CHECK(bc_expand(ro, wide, 5, &ex) == BC_OK && bc_tensor_is_writable(ex) == 0);
  const bc_tensor* pair[2] = {ro, ro};
  bc_tensor* pv[2] = {NULL, NULL};
  CHECK(bc_broadcast_tensors(pair, 2, pv, 2) == BC_OK);
  CHECK(bc_tensor_is_writable(pv[0]) == 0 && bc_tensor_is_writable(pv[1]) == 0);
  bc_tensor_free(pv[0]);
  bc_tensor_free(pv[1]);

  /* Read as an input. */
  const int64_t s1[1] = {1};
  const float ten = 10;
  CHECK(bc_tensor_from_data(BC_FLOAT32, s1, 1, &ten, &one) == BC_OK);
  CHECK(bc_binary(BC_ADD, ro, one, &sum) == BC_OK);
  float got[20];
  CHECK(bc_tensor_copy_to(sum, got, sizeof got) == BC_OK);
  for (int k = 0; k < 20; ++k) CHECK(got[k] == (float)k + 10);
  CHECK(bc_tensor_is_writable(sum) == 1);

  /* Every way of writing into it. */
  CHECK(refused_read_only(bc_binary_(BC_ADD, ro, one)));
  CHECK(refused_read_only(bc_binary_(BC_ADD, view, one)));
  CHECK(refused_read_only(bc_binary_alpha_(BC_SUB, ro, one, 2)));
  CHECK(refused_read_only(bc_binary_out(BC_MUL, sum, one, ro)));
  CHECK(refused_read_only(bc_binary_alpha_out(BC_ADD, sum, one, 3, view)));
  CHECK(refused_read_only(bc_copy_(ro, sum)));
  CHECK(refused_read_only(bc_where_(ro, one, sum)));
  CHECK(refused_read_only(bc_addcmul_(ro, one, one, 1)));
  CHECK(refused_read_only(bc_addcdiv_out(sum, one, one, 1, ro)));
  CHECK(refused_read_only(bc_lerp_(ro, sum, one)));
  CHECK(refused_read_only(bc_clamp_(ro, one, NULL)));
  CHECK(refused_read_only(bc_clamp_out(sum, one, NULL, view)));
  CHECK(memcmp(before, producer_buf, sizeof before) == 0);

  /* A read-only input with a writable out= works; a clone is writable. */
  CHECK(bc_binary_out(BC_MUL, ro, one, sum) == BC_OK);
  CHECK(bc_tensor_copy_to(sum, got, sizeof got) == BC_OK);
  CHECK(got[7] == 70);
  CHECK(bc_tensor_clone(ro, &copy) == BC_OK && bc_tensor_is_writable(copy) == 1);
  CHECK(bc_binary_(BC_ADD, copy, one) == BC_OK);

  /* Exports say read-only; the unversioned form cannot, and refuses. */
  DLManagedTensorVersioned* back = NULL;
  CHECK(bc_tensor_to_dlpack_versioned(view, &back) == BC_OK);
  if (back) {
    CHECK(back->flags == DLPACK_FLAG_BITMASK_READ_ONLY);
    back->deleter(back);
  }
  DLManagedTensor* old = (DLManagedTensor*)&old;
  CHECK(refused_read_only(bc_tensor_to_dlpack(ro, &old)) && old == NULL);
  CHECK(bc_tensor_is_writable(NULL) == 0);

  bc_tensor_free(copy);
  bc_tensor_free(sum);
  bc_tensor_free(one);
  bc_tensor_free(ex);
  bc_tensor_free(view);
  CHECK(producer_deletes == deletes);
  bc_tensor_free(ro);
  CHECK(producer_deletes == deletes + 1);
  CHECK(memcmp(before, producer_buf, sizeof before) == 0);
}

static void versioned_and_strided_import(void) {
  DLManagedTensorVersioned mv;
  memset(&mv, 0, sizeof mv);
  mv.version.major = 1;
  mv.version.minor = 3; /* a later minor version is compatible */
  mv.deleter = producer_delete_v;
  mv.dl_tensor = producer().dl_tensor;
  /* Every other element of the 4-wide dimension: shape (5,1,2,1). */
  int64_t shape[4] = {5, 1, 2, 1}, strides[4] = {4, 4, 2, 1};
  mv.dl_tensor.shape = shape;
  mv.dl_tensor.strides = strides;
  bc_tensor* t = NULL;
  CHECK(bc_tensor_from_dlpack_versioned(&mv, &t) == BC_OK);
  float v[10];
  CHECK(bc_tensor_copy_to(t, v, sizeof v) == BC_OK);
  CHECK(v[0] == 0 && v[1] == 2 && v[2] == 4 && v[9] == 18);
  bc_tensor_free(t);
  CHECK(producer_deletes == 2);
}

static void export_import_every_dtype(void) {
  static const struct {
    bc_dtype dtype;
    uint8_t code, bits;
  } map[] = {{BC_BOOL, kDLBool, 8},       {BC_UINT8, kDLUInt, 8},     {BC_INT8, kDLInt, 8},
             {BC_INT16, kDLInt, 16},      {BC_INT32, kDLInt, 32},     {BC_INT64, kDLInt, 64},
             {BC_FLOAT16, kDLFloat, 16},  {BC_BFLOAT16, kDLBfloat, 16},
             {BC_FLOAT32, kDLFloat, 32},  {BC_FLOAT64, kDLFloat, 64}};
  for (size_t i = 0; i < sizeof map / sizeof map[0]; ++i) {
    const int64_t shape[2] = {2, 3};
    bc_tensor *t = NULL, *back = NULL;
    DLManagedTensor* m = NULL;
    CHECK(bc_tensor_zeros(map[i].dtype, shape, 2, &t) == BC_OK);
    CHECK(bc_tensor_to_dlpack(t, &m) == BC_OK);
    if (!m) continue;
    CHECK(m->dl_tensor.dtype.code == map[i].code && m->dl_tensor.dtype.bits == map[i].bits &&
          m->dl_tensor.dtype.lanes == 1);
    CHECK(m->dl_tensor.device.device_type == kDLCPU && m->dl_tensor.device.device_id == 0);
    CHECK(m->dl_tensor.ndim == 2 && m->dl_tensor.shape[1] == 3 && m->dl_tensor.strides[0] == 3);
    CHECK(m->dl_tensor.data == bc_tensor_data(t) && m->dl_tensor.byte_offset == 0);
    bc_tensor_free(t); /* the export keeps the storage alive */
    CHECK(bc_tensor_from_dlpack(m, &back) == BC_OK);
    CHECK(bc_tensor_dtype(back) == map[i].dtype && bc_tensor_numel(back) == 6);
    bc_tensor_free(back); /* calls m->deleter */
  }
}

static void export_views(void) {
  /* An expanded view exports its zero strides; a 0-dim tensor exports ndim 0. */
  const int64_t s[2] = {3, 1}, to[2] = {3, 4};
  const int32_t vals[3] = {7, 8, 9};
  bc_tensor *t = NULL, *e = NULL, *scalar = NULL;
  CHECK(bc_tensor_from_data(BC_INT32, s, 2, vals, &t) == BC_OK);
  CHECK(bc_expand(t, to, 2, &e) == BC_OK);
  DLManagedTensorVersioned* m = NULL;
  CHECK(bc_tensor_to_dlpack_versioned(e, &m) == BC_OK);
  if (m) {
    CHECK(m->version.major == 1 && m->flags == 0);
    CHECK(m->dl_tensor.shape[0] == 3 && m->dl_tensor.shape[1] == 4);
    CHECK(m->dl_tensor.strides[0] == 1 && m->dl_tensor.strides[1] == 0);
    CHECK(((const int32_t*)m->dl_tensor.data)[2] == 9);
    m->deleter(m);
  }
  CHECK(bc_tensor_from_data(BC_FLOAT64, NULL, 0, &(double){2.5}, &scalar) == BC_OK);
  DLManagedTensor* m0 = NULL;
  CHECK(bc_tensor_to_dlpack(scalar, &m0) == BC_OK);
  if (m0) {
    CHECK(m0->dl_tensor.ndim == 0 && *(const double*)m0->dl_tensor.data == 2.5);
    m0->deleter(m0);
  }
  DLManagedTensor* none = (DLManagedTensor*)&none;
  CHECK(bc_tensor_to_dlpack(NULL, &none) == BC_ERR_INVALID_ARGUMENT && none == NULL);
  bc_tensor_free(scalar);
  bc_tensor_free(e);
  bc_tensor_free(t);
}

int main(void) {
  import_and_broadcast();
  refusals();
  versioned_and_strided_import();
  read_only_import();
  export_import_every_dtype();
  export_views();
  printf("%s\n", failures ? "FAILED" : "ok");
  return failures ? 1 : 0;
}
