"""Kernels in the style of MiniTorch's CUDA module (its Numba-CUDA tensor functions): map
and zip over strided tensors with index helpers working on shape and stride arrays in local
memory, broadcasting, a reduction along one dimension with shared memory, and the 32 x 32
shared-memory matmul practice. Our own code after that course's structure."""

import numpy as np

from simt import cuda

from .case import NCase, close, uniform

MAX_DIMS = 4
BLOCK = 32


@cuda.jit(device=True)
def index_to_position(index, strides, ndim):
    pos = 0
    for k in range(ndim):
        pos += index[k] * strides[k]
    return pos


@cuda.jit(device=True)
def to_index(ordinal, shape, ndim, out_index):
    cur = ordinal
    for k in range(ndim - 1, -1, -1):
        out_index[k] = cur % shape[k]
        cur = cur // shape[k]


@cuda.jit(device=True)
def broadcast_index(big_index, big_ndim, shape, ndim, out_index):
    for k in range(ndim):
        if shape[k] > 1:
            out_index[k] = big_index[k + big_ndim - ndim]
        else:
            out_index[k] = 0


@cuda.jit
def tensor_map_neg_relu(out, out_shape, out_strides, out_size, a, a_shape, a_strides):
    """out = relu(-a), a broadcast to out's shape (a's own strides: a transposed view)."""
    out_index = cuda.local.array(MAX_DIMS, np.int32)
    in_index = cuda.local.array(MAX_DIMS, np.int32)
    i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    if i < out_size:
        to_index(i, out_shape, out_shape.shape[0], out_index)
        broadcast_index(out_index, out_shape.shape[0], a_shape, a_shape.shape[0], in_index)
        v = a[index_to_position(in_index, a_strides, a_shape.shape[0])]
        o = index_to_position(out_index, out_strides, out_shape.shape[0])
        out[o] = max(-v, 0.0)


@cuda.jit
def tensor_zip_mul(out, out_shape, out_strides, out_size, a, a_shape, a_strides, b, b_shape,
                   b_strides):
    out_index = cuda.local.array(MAX_DIMS, np.int32)
    a_index = cuda.local.array(MAX_DIMS, np.int32)
    b_index = cuda.local.array(MAX_DIMS, np.int32)
    i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    if i < out_size:
        nd = out_shape.shape[0]
        to_index(i, out_shape, nd, out_index)
        broadcast_index(out_index, nd, a_shape, a_shape.shape[0], a_index)
        broadcast_index(out_index, nd, b_shape, b_shape.shape[0], b_index)
        va = a[index_to_position(a_index, a_strides, a_shape.shape[0])]
        vb = b[index_to_position(b_index, b_strides, b_shape.shape[0])]
        out[index_to_position(out_index, out_strides, nd)] = va * vb


@cuda.jit
def tensor_reduce_sum(out, a, reduce_size):
    """Sum of each row of a (rows x reduce_size), one block per row, shared memory."""
    cache = cuda.shared.array(BLOCK, np.float32)
    row = cuda.blockIdx.x
    pos = cuda.threadIdx.x
    acc = np.float32(0.0)
    for k in range(pos, reduce_size, BLOCK):
        acc += a[row, k]
    cache[pos] = acc
    cuda.syncthreads()
    stride = BLOCK // 2
    while stride > 0:
        if pos < stride:
            cache[pos] += cache[pos + stride]
        cuda.syncthreads()
        stride //= 2
    if pos == 0:
        out[row] = cache[0]


@cuda.jit
def mm_practice(a, b, out, size):
    """The 32 x 32 practice: both matrices in shared memory, one thread per output."""
    a_shared = cuda.shared.array((BLOCK, BLOCK), np.float32)
    b_shared = cuda.shared.array((BLOCK, BLOCK), np.float32)
    i = cuda.threadIdx.x
    j = cuda.threadIdx.y
    if i < size and j < size:
        a_shared[i, j] = a[i * size + j]
        b_shared[i, j] = b[i * size + j]
    cuda.syncthreads()
    if i < size and j < size:
        acc = np.float32(0.0)
        for k in range(size):
            acc += a_shared[i, k] * b_shared[k, j]
        out[i * size + j] = acc


def _strides(a):
    return np.array([s // a.itemsize for s in a.strides], np.int32)


def _make_map():
    base = uniform(21, (5, 4))
    at = base.T  # a transposed view: shape (4, 5), its own strides
    out = np.zeros((3, 4, 5), np.float32)
    flat = np.ascontiguousarray(base).ravel()
    return (out.ravel(), np.array(out.shape, np.int32), _strides(out), out.size, flat,
            np.array(at.shape, np.int32), np.array([1, 4], np.int32))  # fmt: skip


def _ref_map(out, oshape, ostr, n, a, ashape, astr):
    at = a.reshape(5, 4).T
    return {0: np.broadcast_to(np.maximum(-at, 0), (3, 4, 5)).astype(np.float32).ravel()}


def _make_zip():
    a = uniform(22, (4, 1))
    b = uniform(23, (3,))
    out = np.zeros((4, 3), np.float32)
    return (out.ravel(), np.array(out.shape, np.int32), _strides(out), out.size, a.ravel(),
            np.array(a.shape, np.int32), _strides(a), b, np.array(b.shape, np.int32),
            _strides(b))  # fmt: skip


def _ref_zip(out, *rest):
    a, b = rest[3].reshape(4, 1), rest[6]
    return {0: (a * b).astype(np.float32).ravel()}


CASES = [
    NCase("minitorch_map", "MiniTorch: tensor_map with index helpers and broadcasting",
          tensor_map_neg_relu, _make_map, 2, 32, _ref_map),
    NCase("minitorch_zip", "MiniTorch: tensor_zip with broadcasting", tensor_zip_mul,
          _make_zip, 1, 32, _ref_zip),
    NCase("minitorch_reduce", "MiniTorch: tensor_reduce with shared memory", tensor_reduce_sum,
          lambda: (np.zeros(6, np.float32), uniform(24, (6, 100)), 100), 6, BLOCK,
          lambda out, a, n: {0: a.astype(np.float64).sum(1).astype(np.float32)},
          tol=close(1e-6, 1e-6)),
    NCase("minitorch_mm_practice", "MiniTorch: mm_practice", mm_practice,
          lambda: (uniform(25, 14 * 14), uniform(26, 14 * 14), np.zeros(196, np.float32), 14),
          1, (16, 16),
          lambda a, b, out, n: {2: (a.reshape(14, 14).astype(np.float64) @ b.reshape(14, 14))
                                .astype(np.float32).ravel()},
          tol=close(1e-5, 1e-5)),
]  # fmt: skip
