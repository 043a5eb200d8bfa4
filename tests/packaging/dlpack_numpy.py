"""DLPack round trips between NumPy and bcast, through ctypes.

NumPy -> bcast: ndarray.__dlpack__() gives a "dltensor" capsule, which
bc_tensor_from_dlpack() imports without copying (the capsule is then renamed
"used_dltensor", as the protocol asks). bcast -> NumPy: bc_tensor_to_dlpack()
result in a capsule, handed to np.from_dlpack(). Results are checked against
NumPy's own broadcasting.

usage: dlpack_numpy.py <directory holding libbcast.so>
"""
import ctypes as C
import os
import sys

import numpy as np


class DLDevice(C.Structure):
    _fields_ = [("device_type", C.c_int32), ("device_id", C.c_int32)]


class DLDataType(C.Structure):
    _fields_ = [("code", C.c_uint8), ("bits", C.c_uint8), ("lanes", C.c_uint16)]


class DLTensor(C.Structure):
    _fields_ = [("data", C.c_void_p), ("device", DLDevice), ("ndim", C.c_int32),
                ("dtype", DLDataType), ("shape", C.POINTER(C.c_int64)),
                ("strides", C.POINTER(C.c_int64)), ("byte_offset", C.c_uint64)]


class DLManagedTensor(C.Structure):
    pass


DELETER = C.CFUNCTYPE(None, C.POINTER(DLManagedTensor))
DLManagedTensor._fields_ = [("dl_tensor", DLTensor), ("manager_ctx", C.c_void_p),
                            ("deleter", DELETER)]

lib = C.CDLL(os.path.join(sys.argv[1], "libbcast.so"))
T = C.c_void_p  # bc_tensor*
lib.bc_tensor_from_dlpack.argtypes = [C.c_void_p, C.POINTER(T)]
lib.bc_tensor_to_dlpack.argtypes = [T, C.POINTER(C.POINTER(DLManagedTensor))]
lib.bc_tensor_from_data.argtypes = [C.c_int, C.POINTER(C.c_int64), C.c_size_t, C.c_void_p,
                                    C.POINTER(T)]
lib.bc_binary.argtypes = [C.c_int, T, T, C.POINTER(T)]
lib.bc_binary_.argtypes = [C.c_int, T, T]
lib.bc_tensor_free.argtypes = [T]
lib.bc_last_error.restype = C.c_char_p
BC_ADD, BC_MUL = 0, 2
BC_DTYPES = {np.dtype(np.uint8): 1, np.dtype(np.int8): 2, np.dtype(np.int16): 3,
             np.dtype(np.int32): 4, np.dtype(np.int64): 5, np.dtype(np.float16): 6,
             np.dtype(np.float32): 8, np.dtype(np.float64): 9}

api = C.pythonapi
api.PyCapsule_GetPointer.restype = C.c_void_p
api.PyCapsule_GetPointer.argtypes = [C.py_object, C.c_char_p]
api.PyCapsule_SetName.restype = C.c_int
api.PyCapsule_SetName.argtypes = [C.py_object, C.c_char_p]
api.PyCapsule_New.restype = C.py_object
api.PyCapsule_New.argtypes = [C.c_void_p, C.c_char_p, C.c_void_p]
DLTENSOR = b"dltensor"          # must outlive every capsule named with it
USED_DLTENSOR = b"used_dltensor"


def ok(status):
    if status != 0:
        raise RuntimeError(f"bcast status {status}: {lib.bc_last_error().decode()}")


def from_numpy(a):
    """A bcast tensor sharing a's memory."""
    cap = a.__dlpack__()
    t = T()
    ok(lib.bc_tensor_from_dlpack(api.PyCapsule_GetPointer(cap, DLTENSOR), C.byref(t)))
    api.PyCapsule_SetName(cap, USED_DLTENSOR)  # bcast owns it now
    return t


def from_data(a):
    a = np.ascontiguousarray(a)
    t = T()
    shape = (C.c_int64 * a.ndim)(*a.shape)
    ok(lib.bc_tensor_from_data(BC_DTYPES[a.dtype], shape, a.ndim, a.ctypes.data, C.byref(t)))
    return t


class Exported:
    """What np.from_dlpack() wants: __dlpack__ and __dlpack_device__."""

    def __init__(self, t):
        m = C.POINTER(DLManagedTensor)()
        ok(lib.bc_tensor_to_dlpack(t, C.byref(m)))
        self.ptr = C.cast(m, C.c_void_p).value

    def __dlpack__(self, stream=None, **kwargs):
        # No destructor: NumPy consumes the capsule and calls the deleter.
        return api.PyCapsule_New(self.ptr, DLTENSOR, None)

    def __dlpack_device__(self):
        return (1, 0)  # kDLCPU


def to_numpy(t):
    return np.from_dlpack(Exported(t))


failures = 0


def check(cond, what):
    global failures
    if not cond:
        failures += 1
        print("FAILED:", what)


# NumPy -> bcast -> NumPy, with broadcasting, for several dtypes.
for dt in [np.float32, np.float64, np.int32, np.int64, np.int16, np.uint8, np.float16]:
    x = (np.arange(20) % 7).astype(dt).reshape(5, 1, 4, 1)
    y = np.array([1, 2, 3], dtype=dt).reshape(3, 1, 1)
    tx, ty, tz = from_numpy(x), from_numpy(y), T()
    ok(lib.bc_binary(BC_ADD, tx, ty, C.byref(tz)))
    z = to_numpy(tz)
    lib.bc_tensor_free(tz)  # the NumPy array keeps the storage alive
    check(z.shape == (5, 3, 4, 1) and z.dtype == np.dtype(dt), f"{dt.__name__}: {z.shape} {z.dtype}")
    check(np.array_equal(z, x + y), f"{dt.__name__}: values of x + y")
    lib.bc_tensor_free(tx)
    lib.bc_tensor_free(ty)

# Zero copy: an in-place op on the imported tensor changes the ndarray.
a = np.arange(12, dtype=np.float32).reshape(3, 4)
ta = from_numpy(a)
two = from_data(np.array([2], dtype=np.float32))
ok(lib.bc_binary_(BC_MUL, ta, two))
check(np.array_equal(a, np.arange(12, dtype=np.float32).reshape(3, 4) * 2),
      "in-place through bcast is seen by NumPy")
lib.bc_tensor_free(ta)
lib.bc_tensor_free(two)

# Strided NumPy views: a transpose and a step.
b = np.arange(24, dtype=np.float64).reshape(4, 6)
for view in (b.T, b[:, ::2], b[1:, 2:5]):
    tv, tw = from_numpy(view), T()
    col = from_data(np.ones(view.shape[-1], dtype=np.float64))
    ok(lib.bc_binary(BC_ADD, tv, col, C.byref(tw)))
    check(np.array_equal(to_numpy(tw), view + 1), f"strided view {view.strides}")
    for t in (tv, tw, col):
        lib.bc_tensor_free(t)

# bcast -> NumPy shares memory (NumPy marks DLPack imports read-only, so the
# write goes through bcast), and the array outlives the bcast handle.
t0 = from_data(np.arange(6, dtype=np.int32).reshape(2, 3))
n0 = to_numpy(t0)
three = from_data(np.array([3], dtype=np.int32))
ok(lib.bc_binary_(BC_MUL, t0, three))
lib.bc_tensor_free(t0)
lib.bc_tensor_free(three)
check(np.array_equal(n0, np.arange(6, dtype=np.int32).reshape(2, 3) * 3),
      "bcast writes are seen by NumPy, which keeps the storage alive")

# Read-only NumPy arrays (a broadcast_to view, an array made read-only) come
# through DLPack 1.x's versioned capsule with the read-only flag: bcast reads
# them as inputs, refuses every write with a message, and leaves them alone.
class DLManagedTensorVersioned(C.Structure):
    pass


DELETER_V = C.CFUNCTYPE(None, C.POINTER(DLManagedTensorVersioned))
DLManagedTensorVersioned._fields_ = [("major", C.c_uint32), ("minor", C.c_uint32),
                                     ("manager_ctx", C.c_void_p), ("deleter", DELETER_V),
                                     ("flags", C.c_uint64), ("dl_tensor", DLTensor)]
lib.bc_tensor_from_dlpack_versioned.argtypes = [C.c_void_p, C.POINTER(T)]
lib.bc_tensor_to_dlpack_versioned.argtypes = [T, C.POINTER(C.POINTER(DLManagedTensorVersioned))]
lib.bc_tensor_is_writable.argtypes = [T]
lib.bc_binary_out.argtypes = [C.c_int, T, T, T]
lib.bc_copy_.argtypes = [T, T]
DLTENSOR_V = b"dltensor_versioned"
USED_DLTENSOR_V = b"used_dltensor_versioned"
READ_ONLY = 1


def from_numpy_versioned(a):
    cap = a.__dlpack__(max_version=(1, 0))
    ptr = api.PyCapsule_GetPointer(cap, DLTENSOR_V)
    flags = C.cast(ptr, C.POINTER(DLManagedTensorVersioned)).contents.flags
    t = T()
    ok(lib.bc_tensor_from_dlpack_versioned(ptr, C.byref(t)))
    api.PyCapsule_SetName(cap, USED_DLTENSOR_V)
    return t, flags


class ExportedVersioned:
    def __init__(self, t):
        m = C.POINTER(DLManagedTensorVersioned)()
        ok(lib.bc_tensor_to_dlpack_versioned(t, C.byref(m)))
        self.ptr = C.cast(m, C.c_void_p).value

    def __dlpack__(self, stream=None, max_version=None, **kwargs):
        return api.PyCapsule_New(self.ptr, DLTENSOR_V, None)

    def __dlpack_device__(self):
        return (1, 0)


def has_versioned_dlpack():
    try:
        np.zeros(1).__dlpack__(max_version=(1, 0))
        return True
    except TypeError:
        return False


base = np.arange(12, dtype=np.float32).reshape(3, 4)
frozen = base.copy()
frozen.flags.writeable = False
read_only_arrays = (np.broadcast_to(np.arange(4, dtype=np.float32), (3, 4)), frozen)
if not has_versioned_dlpack():  # NumPy before 2.1 exports DLPack 0.x only
    print(f"NumPy {np.__version__} has no DLPack 1.x export: read-only imports SKIPPED")
    read_only_arrays = ()
for ro in read_only_arrays:
    snapshot = ro.copy()
    tr, flags = from_numpy_versioned(ro)
    check(flags & READ_ONLY, "NumPy flags its read-only export")
    check(lib.bc_tensor_is_writable(tr) == 0, "a read-only import is not writable")
    col = from_data(np.array([[1], [2], [3]], dtype=np.float32))
    tz = T()
    ok(lib.bc_binary(BC_ADD, tr, col, C.byref(tz)))
    check(np.array_equal(to_numpy(tz), ro + np.array([[1], [2], [3]], dtype=np.float32)),
          "a read-only import is read as an input")
    st = lib.bc_binary_(BC_MUL, tr, col)
    check(st == 1 and b"read-only" in lib.bc_last_error(), f"in-place into read-only: {st}")
    st = lib.bc_binary_out(BC_ADD, tz, col, tr)
    check(st == 1 and b"read-only" in lib.bc_last_error(), f"out= into read-only: {st}")
    check(lib.bc_copy_(tr, tz) == 1, "copy_ into read-only")
    check(np.array_equal(ro, snapshot), "refused writes leave the array alone")
    back = np.from_dlpack(ExportedVersioned(tr))
    check(not back.flags.writeable and np.array_equal(back, ro),
          "exported again, NumPy sees it read-only")
    m = C.POINTER(DLManagedTensor)()
    check(lib.bc_tensor_to_dlpack(tr, C.byref(m)) == 1, "unversioned export of read-only refused")
    for t in (tr, col, tz):
        lib.bc_tensor_free(t)

print("ok" if failures == 0 else f"{failures} FAILED")
sys.exit(1 if failures else 0)
