/**
 * @file dlpack.h
 * @brief Zero-copy exchange of tensors with other libraries (NumPy, PyTorch,
 * JAX, CuPy on the host...) through DLPack, in both its unversioned form
 * (::DLManagedTensor) and its 1.x versioned form (::DLManagedTensorVersioned).
 *
 * The DLPack types below are declared to match the DLPack specification's
 * ABI. If the official `dlpack/dlpack.h` was included first, its declarations
 * are used instead (both define the `DLPACK_DLPACK_H_` include guard), so the
 * two headers may be mixed in one program provided the official one comes
 * first.
 */
#ifndef BCAST_DLPACK_H
#define BCAST_DLPACK_H

#include <stdint.h>

#include "bcast/bcast.h"

#ifndef DLPACK_DLPACK_H_
/** The official dlpack/dlpack.h's include guard: whichever header comes
 *  first provides the DLPack declarations. */
#define DLPACK_DLPACK_H_

/** Major version of the DLPack ABI these declarations follow. */
#define DLPACK_MAJOR_VERSION 1
/** Minor version of the DLPack ABI these declarations follow. */
#define DLPACK_MINOR_VERSION 0

/** DLManagedTensorVersioned::flags bit: the consumer must not write to the
 *  tensor. */
#define DLPACK_FLAG_BITMASK_READ_ONLY (UINT64_C(1) << 0)
/** DLManagedTensorVersioned::flags bit: the producer made a copy, so writes
 *  do not reach the producer's original data. */
#define DLPACK_FLAG_BITMASK_IS_COPIED (UINT64_C(1) << 1)

#ifdef __cplusplus
extern "C" {
#endif

/** Where a tensor's memory lives. bcast works on host memory only. */
typedef enum {
  kDLCPU = 1,          /**< Ordinary host memory. */
  kDLCUDA = 2,         /**< CUDA device memory. */
  kDLCUDAHost = 3,     /**< Host memory pinned by CUDA (host-accessible). */
  kDLOpenCL = 4,       /**< OpenCL device memory. */
  kDLVulkan = 7,       /**< Vulkan buffer. */
  kDLMetal = 8,        /**< Metal (Apple GPU) buffer. */
  kDLVPI = 9,          /**< Verilog simulator buffer. */
  kDLROCM = 10,        /**< ROCm device memory. */
  kDLROCMHost = 11,    /**< Host memory pinned by ROCm (host-accessible). */
  kDLExtDev = 12,      /**< Reserved for extension devices. */
  kDLCUDAManaged = 13, /**< CUDA managed (unified) memory. */
  kDLOneAPI = 14,      /**< oneAPI (SYCL) unified shared memory. */
  kDLWebGPU = 15,      /**< WebGPU buffer. */
  kDLHexagon = 16      /**< Qualcomm Hexagon DSP memory. */
} DLDeviceType;

/** A device: its type and its index among devices of that type. */
typedef struct {
  DLDeviceType device_type; /**< Kind of memory. */
  int32_t device_id;        /**< Device index; 0 for the host. */
} DLDevice;

/** Kinds of element type (DLDataType::code). */
typedef enum {
  kDLInt = 0U,          /**< Signed integer. */
  kDLUInt = 1U,         /**< Unsigned integer. */
  kDLFloat = 2U,        /**< IEEE floating point. */
  kDLOpaqueHandle = 3U, /**< Opaque handle; not a number. */
  kDLBfloat = 4U,       /**< bfloat16. */
  kDLComplex = 5U,      /**< Complex number (pairs of floats). */
  kDLBool = 6U          /**< Boolean, stored in `bits` bits. */
} DLDataTypeCode;

/** Element type: kind, width and vector lanes. */
typedef struct {
  uint8_t code;   /**< A ::DLDataTypeCode value. */
  uint8_t bits;   /**< Width of one lane in bits (8 for bool). */
  uint16_t lanes; /**< Lanes per element; 1 for plain scalars. */
} DLDataType;

/** A tensor's memory and geometry, owned by whoever owns the enclosing
 *  managed tensor. */
typedef struct {
  void* data;           /**< Base address; element (0, ..., 0) is at data + byte_offset. */
  DLDevice device;      /**< Where `data` lives. */
  int32_t ndim;         /**< Number of dimensions. */
  DLDataType dtype;     /**< Element type. */
  int64_t* shape;       /**< `ndim` sizes. */
  int64_t* strides;     /**< `ndim` strides in elements, or NULL for compact row-major. */
  uint64_t byte_offset; /**< Offset of element (0, ..., 0) from `data`, in bytes. */
} DLTensor;

/** A DLTensor with a way to release it (DLPack before 1.0, and the
 *  "dltensor" Python capsule). */
typedef struct DLManagedTensor {
  DLTensor dl_tensor; /**< The tensor. */
  void* manager_ctx;  /**< The producer's context, for its deleter. */
  /** Releases the tensor; called once by the consumer when done, may be NULL.
   *  @param self  This managed tensor. */
  void (*deleter)(struct DLManagedTensor* self);
} DLManagedTensor;

/** ABI version of a ::DLManagedTensorVersioned. */
typedef struct {
  uint32_t major; /**< Incompatible ABI changes; a consumer must check it first. */
  uint32_t minor; /**< Compatible additions. */
} DLPackVersion;

/** A DLTensor with a version, flags and a way to release it (DLPack 1.x and
 *  the "dltensor_versioned" Python capsule). */
typedef struct DLManagedTensorVersioned {
  DLPackVersion version; /**< ABI version; only `major` 1 is understood here. */
  void* manager_ctx;     /**< The producer's context, for its deleter. */
  /** Releases the tensor; called once by the consumer when done, may be NULL.
   *  @param self  This managed tensor. */
  void (*deleter)(struct DLManagedTensorVersioned* self);
  uint64_t flags;        /**< DLPACK_FLAG_BITMASK_* bits. */
  DLTensor dl_tensor;    /**< The tensor. */
} DLManagedTensorVersioned;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DLPACK_DLPACK_H_ */

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @defgroup dlpack DLPack interchange
 *
 * Zero-copy conversion between bcast tensors and DLPack managed tensors.
 *
 * Dtypes map one to one: kDLBool/8 is BC_BOOL, kDLUInt/8 BC_UINT8,
 * kDLInt/8..64 BC_INT8..BC_INT64, kDLFloat/16 BC_FLOAT16, kDLBfloat/16
 * BC_BFLOAT16, kDLFloat/32 and /64 BC_FLOAT32 and BC_FLOAT64; lanes must be
 * 1. Strides are in elements on both sides. Only host memory (kDLCPU,
 * kDLCUDAHost, kDLROCMHost) can be imported; exports are kDLCPU.
 * @{
 */

/** Imports an unversioned DLPack tensor without copying.
 *
 *  On success the new tensor owns `src`: `src->deleter(src)` is called
 *  once, when the last bcast handle over its memory (the tensor and every
 *  view of it) is freed. On failure `src` stays the caller's and its
 *  deleter is not called. bcast may write to the memory through in-place
 *  and out= ops.
 *  @param[in]  src  The managed tensor; must not be NULL. Its shape and
 *                   strides arrays are read during the call only.
 *  @param[out] out  Receives a new tensor owned by the caller, to be
 *                   released with bc_tensor_free(); NULL on failure.
 *  @return BC_OK; BC_ERR_INVALID_ARGUMENT (a NULL pointer, memory not on the
 *          host, ndim above #BC_MAX_DIMS, a negative size or stride,
 *          misaligned data); BC_ERR_DTYPE (a dtype with no bcast equivalent);
 *          BC_ERR_OVERFLOW; BC_ERR_OUT_OF_MEMORY.
 *  @par Thread safety
 *  Safe from any thread; no other thread may use `src` during the call. */
BC_API bc_status bc_tensor_from_dlpack(DLManagedTensor* src, bc_tensor** out);

/** Imports a DLPack 1.x versioned tensor without copying; as
 *  bc_tensor_from_dlpack() otherwise. A tensor flagged
 *  #DLPACK_FLAG_BITMASK_READ_ONLY (NumPy's read-only arrays and
 *  broadcast_to views) gives a read-only handle (bc_tensor_is_writable()
 *  is 0): it and its views are read as inputs like any tensor, and every
 *  write into them fails with BC_ERR_INVALID_ARGUMENT, writing nothing.
 *  @param[in]  src  The managed tensor; must not be NULL. Its major version
 *                   must be 1.
 *  @param[out] out  Receives a new tensor owned by the caller, to be
 *                   released with bc_tensor_free(); NULL on failure.
 *  @return BC_OK; BC_ERR_INVALID_ARGUMENT (as bc_tensor_from_dlpack(), or
 *          another major version); BC_ERR_DTYPE;
 *          BC_ERR_OVERFLOW; BC_ERR_OUT_OF_MEMORY.
 *  @par Thread safety
 *  Safe from any thread; no other thread may use `src` during the call. */
BC_API bc_status bc_tensor_from_dlpack_versioned(DLManagedTensorVersioned* src,
                                                 bc_tensor** out);

/** Exports a tensor as an unversioned DLPack tensor without copying.
 *
 *  The managed tensor shares `t`'s memory and keeps it alive on its own:
 *  `t` may be freed first. Writes through either are seen by the other.
 *  A read-only tensor is refused: this form has no way to say so (use
 *  bc_tensor_to_dlpack_versioned()).
 *  @param[in]  t    The tensor to export; borrowed.
 *  @param[out] out  Receives a new managed tensor owned by the caller (in
 *                   DLPack terms, the consumer), released by calling
 *                   `(*out)->deleter(*out)` once; NULL on failure. Its
 *                   shape and strides arrays live as long as it does.
 *  @return BC_OK; BC_ERR_INVALID_ARGUMENT (a NULL pointer, a read-only
 *          `t`); BC_ERR_OUT_OF_MEMORY.
 *  @par Thread safety
 *  Other threads may read `t` at the same time. The deleter may be called
 *  from any thread. */
BC_API bc_status bc_tensor_to_dlpack(const bc_tensor* t, DLManagedTensor** out);

/** Exports a tensor as a DLPack 1.x versioned tensor (version 1.0, not
 *  copied; flagged #DLPACK_FLAG_BITMASK_READ_ONLY when `t` is read-only,
 *  else writable) without copying; as bc_tensor_to_dlpack() otherwise.
 *  @param[in]  t    The tensor to export; borrowed.
 *  @param[out] out  Receives a new managed tensor owned by the caller,
 *                   released by calling `(*out)->deleter(*out)` once; NULL
 *                   on failure.
 *  @return BC_OK; BC_ERR_INVALID_ARGUMENT (a NULL pointer);
 *          BC_ERR_OUT_OF_MEMORY.
 *  @par Thread safety
 *  Other threads may read `t` at the same time. The deleter may be called
 *  from any thread. */
BC_API bc_status bc_tensor_to_dlpack_versioned(const bc_tensor* t,
                                               DLManagedTensorVersioned** out);

/** @copydoc bc_tensor_from_dlpack
 *  @param[in] ctx  The context it runs on; NULL for the default context. */
BC_API bc_status bc_ctx_tensor_from_dlpack(bc_ctx* ctx, DLManagedTensor* src, bc_tensor** out);
/** @copydoc bc_tensor_from_dlpack_versioned
 *  @param[in] ctx  The context it runs on; NULL for the default context. */
BC_API bc_status bc_ctx_tensor_from_dlpack_versioned(bc_ctx* ctx, DLManagedTensorVersioned* src,
                                                     bc_tensor** out);
/** @copydoc bc_tensor_to_dlpack
 *  @param[in] ctx  The context it runs on; NULL for the default context. */
BC_API bc_status bc_ctx_tensor_to_dlpack(bc_ctx* ctx, const bc_tensor* t, DLManagedTensor** out);
/** @copydoc bc_tensor_to_dlpack_versioned
 *  @param[in] ctx  The context it runs on; NULL for the default context. */
BC_API bc_status bc_ctx_tensor_to_dlpack_versioned(bc_ctx* ctx, const bc_tensor* t,
                                                   DLManagedTensorVersioned** out);

/** @} */

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* BCAST_DLPACK_H */
