// Allocation of the tensors bcast owns: alignment and huge-page advice.
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "core/dtype.h"
#include "core/error.h"
#include "core/ops.h"
#include "core/shape.h"

namespace bcast {

namespace {

// Storage of 2 MiB or more starts on a 2 MiB boundary and its whole 2 MiB
// blocks are offered to Linux as transparent huge pages (MADV_HUGEPAGE: the
// default "madvise" mode of most distributions uses them only when asked).
// One TLB entry then covers 2 MiB instead of 4 KiB, which is what walks across
// a transposed operand's rows need (each 256-byte run of a tile lies in
// another 4 KiB page), and a first touch faults once per 2 MiB. The partial
// block at the end stays in small pages, so resident memory is never more
// than the tensor's bytes. Advice the kernel refuses is harmless: the memory
// is then ordinary pages. Storage the caller wraps is never advised.
// BCAST_HUGE_PAGES=0 in the environment (read once) turns the advice off, for
// hosts where the kernel's compaction on a huge-page fault costs too much.
constexpr size_t kHugePage = size_t{2} << 20;

bool HugePagesWanted() {
  // 0 unknown, 1 yes, 2 no; an atomic rather than a guarded static (fork).
  static std::atomic<int> cached{0};
  int v = cached.load(std::memory_order_relaxed);
  if (v == 0) {
    const char* env = std::getenv("BCAST_HUGE_PAGES");
    v = env == nullptr || std::strcmp(env, "0") != 0 ? 1 : 2;
    cached.store(v, std::memory_order_relaxed);
  }
  return v == 1;
}

void* AllocateData(size_t nbytes) {
  if (nbytes == 0) return std::malloc(1);
  const size_t align = nbytes >= kHugePage ? kHugePage : 64;
  void* data = nullptr;
  if (posix_memalign(&data, align, (nbytes + 63) / 64 * 64) != 0) return nullptr;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (align == kHugePage && HugePagesWanted()) madvise(data, nbytes / kHugePage * kHugePage, MADV_HUGEPAGE);
#endif
  return data;
}

// Storage of at most this many bytes shares one allocation with its
// Storage record (the record first, the data 64 bytes on): a small
// allocating op then costs two allocations instead of three.
constexpr size_t kInlineBytes = 4096;
constexpr size_t kRecordBytes = (sizeof(Storage) + 63) / 64 * 64;

// A Storage record owning `nbytes` of new data (one reference), or nullptr.
Storage* NewOwnedStorage(size_t nbytes) {
  Storage* s = nullptr;
  if (nbytes <= kInlineBytes) {
    void* block = nullptr;
    if (posix_memalign(&block, 64, kRecordBytes + (nbytes + 63) / 64 * 64) != 0) return nullptr;
    s = new (block) Storage;
    s->data = static_cast<char*>(block) + kRecordBytes;
    s->inline_data = true;
  } else {
    void* data = AllocateData(nbytes);
    s = data ? new (std::nothrow) Storage : nullptr;
    if (s == nullptr) {
      std::free(data);
      return nullptr;
    }
    s->data = data;
  }
  s->nbytes = nbytes;
  s->owned = true;
  return s;
}

}  // namespace

void FreeStorageRecord(Storage* s) {
  if (s->inline_data) {
    s->~Storage();
    std::free(s);
  } else {
    delete s;
  }
}

bc_tensor* NewTensor(bc_dtype dtype, const Shape& shape) {
  const int64_t numel = ShapeNumel(shape);
  const size_t es = DtypeSize(dtype);
  if (numel > static_cast<int64_t>(SIZE_MAX / 2 / es))
    Fail(BC_ERR_OVERFLOW, "tensor of shape " + FormatShape(shape) + " is too large");
  size_t nbytes = static_cast<size_t>(numel) * es;
  Storage* s = NewOwnedStorage(nbytes);
  bc_tensor* t = s ? new (std::nothrow) bc_tensor(bc_tensor::SizesUnset{}) : nullptr;
  if (t == nullptr) {
    if (s != nullptr) StorageRelease(s);  // its one reference: frees the data and the record
    Fail(BC_ERR_OUT_OF_MEMORY, "out of memory allocating " + std::to_string(nbytes) + " bytes");
  }
  t->storage = s;
  t->data = static_cast<char*>(s->data);
  t->dtype = dtype;
  t->ndim = shape.ndim;
  for (int i = 0; i < shape.ndim; ++i) t->shape[i] = shape.d[i];
  RowMajorStrides(t->shape, t->ndim, t->strides);
  return t;
}

// A tensor over the caller's buffer (bc_tensor_wrap, DLPack import): the
// shape and strides checked to stay inside `nbytes`; throws on bad input.
bc_tensor* WrapBuffer(bc_dtype dtype, const int64_t* shape, const int64_t* strides, size_t ndim,
                      void* data, size_t nbytes, bc_deleter deleter, void* deleter_ctx) {
  const Shape s = CheckedShape(shape, ndim);
  const int64_t numel = ShapeNumel(s);
  const size_t es = DtypeSize(dtype);
  int64_t st[BC_MAX_DIMS];
  int64_t expected = 1;
  for (int i = s.ndim - 1; i >= 0; --i) {
    if (strides != nullptr) {
      st[i] = strides[i];
      if (st[i] < 0)
        Fail(BC_ERR_INVALID_ARGUMENT, "negative stride " + std::to_string(st[i]) +
                                          " at dimension " + std::to_string(i));
    } else {
      st[i] = expected;
      expected = NextStride(expected, s.d[i]);
    }
  }
  if (numel > 0) {
    if (data == nullptr) Fail(BC_ERR_INVALID_ARGUMENT, "data is NULL");
    if (reinterpret_cast<uintptr_t>(data) % es != 0)
      Fail(BC_ERR_INVALID_ARGUMENT, std::string("data is not aligned for ") +
                                        DtypeName(dtype) + " (" + std::to_string(es) +
                                        " bytes)");
    // Highest element offset, then bytes needed, all overflow-checked.
    int64_t last = 0, need = 0;
    bool overflow = false;
    for (int i = 0; i < s.ndim; ++i) {
      int64_t e;
      overflow |= __builtin_mul_overflow(s.d[i] - 1, st[i], &e);
      overflow |= __builtin_add_overflow(last, e, &last);
    }
    overflow |= __builtin_add_overflow(last, int64_t{1}, &need);
    overflow |= __builtin_mul_overflow(need, static_cast<int64_t>(es), &need);
    if (overflow || static_cast<uint64_t>(need) > nbytes)
      Fail(BC_ERR_OUT_OF_BOUNDS,
           "strides " + FormatShape(st, s.ndim) + " of shape " + FormatShape(s) +
               " reach past the " + std::to_string(nbytes) + "-byte buffer");
  }
  Storage* storage = new Storage;
  bc_tensor* t = new (std::nothrow) bc_tensor;
  if (t == nullptr) {
    delete storage;
    throw std::bad_alloc();
  }
  storage->data = data;
  storage->nbytes = nbytes;
  storage->deleter = deleter;
  storage->ctx = deleter_ctx;
  t->storage = storage;
  t->data = static_cast<char*>(data);
  t->dtype = dtype;
  t->ndim = s.ndim;
  for (int i = 0; i < s.ndim; ++i) {
    t->shape[i] = s.d[i];
    t->strides[i] = st[i];
  }
  return t;
}


}  // namespace bcast
