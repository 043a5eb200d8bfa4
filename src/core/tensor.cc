#include "core/tensor.h"

#include <cstdlib>
#include <new>

namespace bcast {

void StorageRetain(Storage* s) { s->refs.fetch_add(1, std::memory_order_relaxed); }

void StorageRelease(Storage* s) {
  if (s->refs.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  if (s->owned) {
    std::free(s->data);
  } else if (s->deleter != nullptr) {
    s->deleter(s->data, s->ctx);
  }
  delete s;
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
