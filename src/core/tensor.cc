#include "core/tensor.h"

#include <cstdlib>
#include <new>
#include <string>

#include "core/error.h"

namespace bcast {

void StorageRetain(Storage* s) { s->refs.fetch_add(1, std::memory_order_relaxed); }

void StorageRelease(Storage* s) {
  if (s->refs.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  if (s->owned && !s->inline_data) {
    std::free(s->data);
  } else if (!s->owned && s->deleter != nullptr) {
    s->deleter(s->data, s->ctx);
  }
  FreeStorageRecord(s);
}

void CheckWritable(const bc_tensor& t, const char* what) {
  if (t.storage == nullptr || !t.storage->read_only) return;
  Fail(BC_ERR_INVALID_ARGUMENT,
       std::string(what) + " is read-only (imported from DLPack with the read-only flag) and "
                           "cannot be written; write into a copy made with bc_tensor_clone()");
}

bc_tensor* NewView(const bc_tensor& t, const int64_t* shape, const int64_t* strides, int ndim) {
  bc_tensor* v = MakeView(t, shape, strides, ndim);
  if (v == nullptr) Fail(BC_ERR_OUT_OF_MEMORY, "out of memory");
  return v;
}

bc_tensor* MakeView(const bc_tensor& t, const int64_t* shape, const int64_t* strides, int ndim) {
  bc_tensor* v = new (std::nothrow) bc_tensor;
  if (v == nullptr) return nullptr;
  v->storage = t.storage;
  StorageRetain(t.storage);
  v->data = t.data;
  v->dtype = t.dtype;
  v->ndim = ndim;
  for (int i = 0; i < ndim; ++i) {
    v->shape[i] = shape[i];
    v->strides[i] = strides[i];
  }
  return v;
}

}  // namespace bcast
