// DLPack interchange: an imported DLPack tensor is a wrapped buffer whose
// deleter calls the producer's; an exported one carries a view handle in
// manager_ctx, which keeps the storage alive. Built on the engine's own
// functions, never the public ones: an error is recorded once, in the
// context the caller named (bc_ctx_tensor_from_dlpack).
#include "bcast/dlpack.h"

#include <new>
#include <string>
#include <type_traits>

#include "capi/guard.h"
#include "core/dtype.h"
#include "core/error.h"
#include "core/tensor.h"

using bcast::Fail;

namespace {

// The DLPack codes of src/core/dtype_table.def; bits are the dtype's width.
constexpr uint8_t kDLCode[] = {
#define BCAST_DTYPE(Id, CType, kind, torch, cpp, checked, tensor, dlpack) dlpack,
#include "core/dtype_table.def"
};

bool FromDL(DLDataType t, bc_dtype* out) {
  if (t.lanes != 1) return false;
  for (int d = 0; d < bcast::kNumDtypes; ++d) {
    const bc_dtype dt = static_cast<bc_dtype>(d);
    if (kDLCode[d] == t.code && bcast::DtypeSize(dt) * 8 == t.bits) {
      *out = dt;
      return true;
    }
  }
  return false;
}

DLDataType ToDL(bc_dtype d) {
  return {kDLCode[d], static_cast<uint8_t>(bcast::DtypeSize(d) * 8), 1};
}

// Memory the host can read and write directly.
bool OnHost(DLDeviceType d) { return d == kDLCPU || d == kDLCUDAHost || d == kDLROCMHost; }

template <class M>
void CallProducerDeleter(void* /*data*/, void* ctx) {
  M* m = static_cast<M*>(ctx);
  if (m->deleter != nullptr) m->deleter(m);
}

template <class M>
bc_status Import(bc_ctx* ctx, M* src, bc_tensor** out) {
  if (out != nullptr) *out = nullptr;
  return bcast::Guarded(ctx, [&] {
    if (out == nullptr) Fail(BC_ERR_INVALID_ARGUMENT, "out is NULL");
    if (src == nullptr) Fail(BC_ERR_INVALID_ARGUMENT, "src is NULL");
    if constexpr (std::is_same_v<M, DLManagedTensorVersioned>) {
      // The major version must be checked before any other field is read.
      if (src->version.major != DLPACK_MAJOR_VERSION)
        Fail(BC_ERR_INVALID_ARGUMENT,
             "unsupported DLPack major version " + std::to_string(src->version.major) +
                 " (bcast reads version " + std::to_string(DLPACK_MAJOR_VERSION) + ")");
    }
    const DLTensor& dl = src->dl_tensor;
    if (!OnHost(dl.device.device_type))
      Fail(BC_ERR_INVALID_ARGUMENT, "DLPack device type " +
                                        std::to_string(dl.device.device_type) +
                                        " is not host memory");
    bc_dtype dtype;
    if (!FromDL(dl.dtype, &dtype))
      Fail(BC_ERR_DTYPE, "DLPack dtype (code " + std::to_string(dl.dtype.code) + ", bits " +
                             std::to_string(dl.dtype.bits) + ", lanes " +
                             std::to_string(dl.dtype.lanes) + ") has no bcast equivalent");
    if (dl.ndim < 0 || dl.ndim > BC_MAX_DIMS)
      Fail(BC_ERR_INVALID_ARGUMENT, "DLPack ndim " + std::to_string(dl.ndim) +
                                        " is outside 0.." + std::to_string(BC_MAX_DIMS));
    if (dl.ndim > 0 && dl.shape == nullptr) Fail(BC_ERR_INVALID_ARGUMENT, "DLPack shape is NULL");

    // DLPack gives no buffer size: the buffer is exactly the bytes from
    // element (0, ..., 0) to the last element. Negative sizes and strides
    // are left for bc_tensor_wrap() to refuse.
    int64_t last = 0, contiguous_stride = 1;
    bool empty = false, overflow = false;
    for (int i = dl.ndim - 1; i >= 0; --i) {
      const int64_t n = dl.shape[i];
      if (n <= 0) {
        empty = true;
        continue;
      }
      const int64_t s = dl.strides != nullptr ? dl.strides[i] : contiguous_stride;
      int64_t reach = 0;
      if (s > 0) overflow |= __builtin_mul_overflow(n - 1, s, &reach);
      overflow |= __builtin_add_overflow(last, reach, &last);
      overflow |= __builtin_mul_overflow(contiguous_stride, n, &contiguous_stride);
    }
    uint64_t nbytes = 0;
    if (!empty) {
      overflow |= __builtin_mul_overflow(static_cast<uint64_t>(last) + 1,
                                         static_cast<uint64_t>(bcast::DtypeSize(dtype)), &nbytes);
    }
    if (overflow || nbytes > SIZE_MAX) Fail(BC_ERR_OVERFLOW, "DLPack tensor is too large");

    void* data = dl.data == nullptr ? nullptr : static_cast<char*>(dl.data) + dl.byte_offset;
    bc_tensor* t = bcast::WrapBuffer(dtype, dl.shape, dl.strides, static_cast<size_t>(dl.ndim),
                                     data, static_cast<size_t>(nbytes), &CallProducerDeleter<M>,
                                     src);
    if constexpr (std::is_same_v<M, DLManagedTensorVersioned>) {
      if (src->flags & DLPACK_FLAG_BITMASK_READ_ONLY) t->storage->read_only = true;
    }
    *out = t;
  });
}

// The exported managed tensor and what it points into, in one allocation.
template <class M>
struct Exported {
  M managed{};
  bc_tensor* view = nullptr;
  int64_t shape[BC_MAX_DIMS];
  int64_t strides[BC_MAX_DIMS];
};

template <class M>
void DeleteExported(M* self) {
  auto* e = static_cast<Exported<M>*>(self->manager_ctx);
  bcast::FreeTensor(e->view);
  delete e;
}

template <class M>
bc_status Export(bc_ctx* ctx, const bc_tensor* t, M** out) {
  if (out != nullptr) *out = nullptr;
  return bcast::Guarded(ctx, [&] {
    if (out == nullptr) Fail(BC_ERR_INVALID_ARGUMENT, "out is NULL");
    if (t == nullptr) Fail(BC_ERR_INVALID_ARGUMENT, "t is NULL");
    const bool read_only = t->storage != nullptr && t->storage->read_only;
    // Unversioned DLPack cannot say "read-only" (NumPy refuses such exports too).
    if (!std::is_same_v<M, DLManagedTensorVersioned> && read_only)
      Fail(BC_ERR_INVALID_ARGUMENT,
           "t is read-only and unversioned DLPack cannot mark it so; export it with "
           "bc_tensor_to_dlpack_versioned(), or export a bc_tensor_clone()");
    auto* e = new Exported<M>;
    e->view = bcast::MakeView(*t, t->shape, t->strides, t->ndim);
    if (e->view == nullptr) {
      delete e;
      throw std::bad_alloc();
    }
    for (int i = 0; i < t->ndim; ++i) {
      e->shape[i] = t->shape[i];
      e->strides[i] = t->strides[i];
    }
    DLTensor& dl = e->managed.dl_tensor;
    dl.data = t->data;
    dl.device = DLDevice{kDLCPU, 0};
    dl.ndim = static_cast<int32_t>(t->ndim);
    dl.dtype = ToDL(t->dtype);
    dl.shape = e->shape;
    dl.strides = e->strides;
    dl.byte_offset = 0;
    e->managed.manager_ctx = e;
    e->managed.deleter = &DeleteExported<M>;
    if constexpr (std::is_same_v<M, DLManagedTensorVersioned>) {
      e->managed.version = DLPackVersion{DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
      e->managed.flags = read_only ? DLPACK_FLAG_BITMASK_READ_ONLY : 0;
    }
    *out = &e->managed;
  });
}

}  // namespace

BC_API bc_status bc_tensor_from_dlpack(DLManagedTensor* src, bc_tensor** out) {
  return Import(nullptr, src, out);
}
BC_API bc_status bc_ctx_tensor_from_dlpack(bc_ctx* ctx, DLManagedTensor* src, bc_tensor** out) {
  return Import(ctx, src, out);
}

BC_API bc_status bc_tensor_from_dlpack_versioned(DLManagedTensorVersioned* src,
                                                 bc_tensor** out) {
  return Import(nullptr, src, out);
}
BC_API bc_status bc_ctx_tensor_from_dlpack_versioned(bc_ctx* ctx, DLManagedTensorVersioned* src,
                                                     bc_tensor** out) {
  return Import(ctx, src, out);
}

BC_API bc_status bc_tensor_to_dlpack(const bc_tensor* t, DLManagedTensor** out) {
  return Export(nullptr, t, out);
}
BC_API bc_status bc_ctx_tensor_to_dlpack(bc_ctx* ctx, const bc_tensor* t, DLManagedTensor** out) {
  return Export(ctx, t, out);
}

BC_API bc_status bc_tensor_to_dlpack_versioned(const bc_tensor* t,
                                               DLManagedTensorVersioned** out) {
  return Export(nullptr, t, out);
}
BC_API bc_status bc_ctx_tensor_to_dlpack_versioned(bc_ctx* ctx, const bc_tensor* t,
                                                   DLManagedTensorVersioned** out) {
  return Export(ctx, t, out);
}
