// Tensor handle internals: a dtype, a shape and element strides over shared,
// reference-counted storage.
#ifndef BCAST_CORE_TENSOR_H_
#define BCAST_CORE_TENSOR_H_

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "bcast/bcast.h"

namespace bcast {

// Owned (allocated by us) or wrapped (the caller's, released by its deleter).
struct Storage {
  void* data = nullptr;
  size_t nbytes = 0;
  bc_deleter deleter = nullptr;  // null for owned storage (freed with std::free)
  void* ctx = nullptr;
  bool owned = false;
  // Imported from a producer that forbids writes (DLPack's READ_ONLY flag):
  // every view shares the flag, every write into it is refused.
  bool read_only = false;
  // Owned data in the same allocation as this record (NewTensor, small
  // tensors): freed with it.
  bool inline_data = false;
  std::atomic<int64_t> refs{1};
};

void StorageRetain(Storage* s);
void StorageRelease(Storage* s);
// Frees a Storage record made by NewTensor or `new` (not its data, unless
// that lives in the record's allocation).
void FreeStorageRecord(Storage* s);

// Only the first ndim sizes are meaningful (left uninitialised: ops are hot).
struct Shape {
  int ndim = 0;
  int64_t d[BC_MAX_DIMS];
};

}  // namespace bcast

// The opaque C handle. `data` points at element (0, ..., 0) inside storage.
struct bc_tensor {
  bcast::Storage* storage = nullptr;
  char* data = nullptr;
  bc_dtype dtype = BC_FLOAT32;
  int ndim = 0;
  int64_t shape[BC_MAX_DIMS];
  int64_t strides[BC_MAX_DIMS];
  // A Python number as PyTorch wraps it (bc_tensor_from_scalar): a 0-dim
  // int64, float64 or bool tensor of the weakest tier in type promotion. As
  // in PyTorch, only the operand itself is one: views of it are not.
  bool wrapped_number = false;

  bc_tensor() : shape{}, strides{} {}
  // A tensor whose maker sets the first ndim sizes and strides itself (a
  // number on the stack: none; NewTensor): those past ndim are never read,
  // and zeroing their 512 bytes was a third of a small op with a number
  // (25 of 70 ns) and two thirds of NewTensor.
  struct SizesUnset {};
  explicit bc_tensor(SizesUnset) {}
};

namespace bcast {

// Sizes were checked when the tensor was made: a product that could overflow
// only arises with a 0 among the sizes, which is tested first.
inline int64_t Numel(const bc_tensor& t) {
  for (int i = 0; i < t.ndim; ++i)
    if (t.shape[i] == 0) return 0;
  int64_t n = 1;
  for (int i = 0; i < t.ndim; ++i) n *= t.shape[i];
  return n;
}

// Row-major stride step: saturates instead of overflowing, which only the
// sizes of a 0-element tensor can make it do (its strides are never used).
inline int64_t NextStride(int64_t stride, int64_t size) {
  int64_t r;
  if (size <= 1) return stride;
  return __builtin_mul_overflow(stride, size, &r) ? INT64_MAX : r;
}
// Row-major (C-contiguous) strides of `shape`, the layout of every tensor
// bcast allocates.
inline void RowMajorStrides(const int64_t* shape, int ndim, int64_t* strides) {
  int64_t stride = 1;
  for (int i = ndim - 1; i >= 0; --i) {
    strides[i] = stride;
    stride = NextStride(stride, shape[i]);
  }
}
inline bool IsContiguous(const bc_tensor& t) {
  int64_t expected = 1;
  for (int i = t.ndim - 1; i >= 0; --i) {
    if (t.shape[i] == 0) return true;
    if (t.shape[i] != 1 && t.strides[i] != expected) return false;
    expected = NextStride(expected, t.shape[i]);
  }
  return true;
}
// Throws BC_ERR_INVALID_ARGUMENT when `t`, named `what` in the message, is
// read-only: called before anything is written into it.
void CheckWritable(const bc_tensor& t, const char* what);

// New handle over t's storage with the given geometry; null on allocation failure.
bc_tensor* MakeView(const bc_tensor& t, const int64_t* shape, const int64_t* strides, int ndim);
// The same, throwing BC_ERR_OUT_OF_MEMORY instead; without a geometry, t's own.
bc_tensor* NewView(const bc_tensor& t, const int64_t* shape, const int64_t* strides, int ndim);
inline bc_tensor* NewView(const bc_tensor& t) { return NewView(t, t.shape, t.strides, t.ndim); }

// bc_tensor_wrap()'s tensor over a caller's buffer, for the library's own
// callers (DLPack import): checks the shape, strides and bounds, throws with
// the public function's texts; the caller has checked the dtype.
bc_tensor* WrapBuffer(bc_dtype dtype, const int64_t* shape, const int64_t* strides, size_t ndim,
                      void* data, size_t nbytes, bc_deleter deleter, void* deleter_ctx);

// bc_tensor_free()'s release of a handle (NULL is fine).
inline void FreeTensor(bc_tensor* t) {
  if (t == nullptr) return;
  StorageRelease(t->storage);
  delete t;
}

}  // namespace bcast

#endif  // BCAST_CORE_TENSOR_H_
