# The code cells of "Effective Use of the Memory Subsystem", a section of NVIDIA's Deep Learning
# Institute course "Fundamentals of Accelerated Computing with CUDA Python", as a student
# completed it in the public repository HROlive/Fundamentals-of-Accelerated-Computing-with-
# CUDA-Python, file "Effective Memory Use.ipynb" (commit c2d4bb4). The kernels are the
# course's, kept as written (their long explanatory comments shortened); each cell's import
# line says `simt` where it said `numba` -- the only change to the program's code. Two more,
# marked "# test:": the data sizes are scaled down (the notebook's 16384 x 16384 float32
# matrix is 1 GiB; each size here keeps the notebook's block shapes and grid arithmetic), and
# the notebook's `np.array_equal(...)` cells, which Jupyter displays, are kept as RESULTS
# entries that the test asserts. IPython's `%timeit` lines are launches here.
import numpy as np
from simt import cuda

RESULTS = {}
SCALE = 32  # test: the notebook's sizes divided by this (per side)

n = 1024*1024 // SCALE**2 # 1M  (test: scaled)

threads_per_block = 1024
blocks = int(n / threads_per_block)

stride = 16

# Input Vectors of length stride * n
a = np.ones(stride * n).astype(np.float32)
b = a.copy().astype(np.float32)

# Output Vector
out = np.zeros(n).astype(np.float32)

d_a = cuda.to_device(a)
d_b = cuda.to_device(b)
d_out = cuda.to_device(out)

@cuda.jit
def add_experiment(a, b, out, stride, coalesced):
    i = cuda.grid(1)
    # The above line is equivalent to
    # i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    if coalesced == True:
        out[i] = a[i] + b[i]
    else:
        out[i] = a[stride*i] + b[stride*i]

add_experiment[blocks, threads_per_block](d_a, d_b, d_out, stride, True); cuda.synchronize
result = d_out.copy_to_host()
truth = a[:n] + b[:n]
RESULTS["add_experiment coalesced"] = np.array_equal(result, truth)

add_experiment[blocks, threads_per_block](d_a, d_b, d_out, stride, False); cuda.synchronize
result = d_out.copy_to_host()
truth = a[::stride] + b[::stride]
RESULTS["add_experiment strided"] = np.array_equal(result, truth)

import numpy as np
from simt import cuda

n = 16384 // SCALE # matrix side size  (test: scaled)
threads_per_block = 256
blocks = int(n / threads_per_block)

# Input Matrix
a = np.ones(n*n).reshape(n, n).astype(np.float32)
# Here we set an arbitrary row to an arbitrary value to facilitate a check for correctness below.
a[3] = 9

# Output vector
sums = np.zeros(n).astype(np.float32)

d_a = cuda.to_device(a)
d_sums = cuda.to_device(sums)

@cuda.jit
def row_sums(a, sums, n):
    idx = cuda.grid(1)
    sum = 0.0

    for i in range(n):
        # Each thread will sum a row of `a`
        sum += a[idx][i]

    sums[idx] = sum

row_sums[blocks, threads_per_block](d_a, d_sums, n); cuda.synchronize()
result = d_sums.copy_to_host()
truth = a.sum(axis=1)
RESULTS["row_sums"] = np.array_equal(truth, result)

import numpy as np
from simt import cuda

n = 16384 // SCALE # matrix side size  (test: scaled)
threads_per_block = 256
blocks = int(n / threads_per_block)

a = np.ones(n*n).reshape(n, n).astype(np.float32)
# Here we set an arbitrary column to an arbitrary value to facilitate a check for correctness below.
a[:, 3] = 9
sums = np.zeros(n).astype(np.float32)

d_a = cuda.to_device(a)
d_sums = cuda.to_device(sums)

@cuda.jit
def col_sums(a, sums, ds):
    idx = cuda.grid(1)
    sum = 0.0

    for i in range(ds):
        sum += a[i][idx]

    sums[idx] = sum

col_sums[blocks, threads_per_block](d_a, d_sums, n); cuda.synchronize()
result = d_sums.copy_to_host()
truth = a.sum(axis=0)
RESULTS["col_sums"] = np.array_equal(truth, result)

import numpy as np
from simt import cuda

A = np.zeros((4,4)) # A 4x4 Matrix of 0's
d_A = cuda.to_device(A)

# Here we create a 2D grid with 4 blocks in a 2x2 structure, each with 4 threads in a 2x2 structure
# by using a Python tuple to signify grid and block dimensions.
blocks = (2, 2)
threads_per_block = (2, 2)

@cuda.jit
def get_2D_indices(A):
    # By passing `2`, we get the thread's unique x and y coordinates in the 2D grid
    x, y = cuda.grid(2)
    # The above is equivalent to the following 2 lines of code:
    # x = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    # y = cuda.blockIdx.y * cuda.blockDim.y + cuda.threadIdx.y

    # Write the x index followed by a decimal and the y index.
    A[x][y] = x + y / 10

get_2D_indices[blocks, threads_per_block](d_A)
result = d_A.copy_to_host()
RESULTS["get_2D_indices"] = result

import numpy as np
from simt import cuda

n = 2048*2048 // SCALE**2 # 4M  (test: scaled)

# 2D blocks
threads_per_block = (32, 32)
# 2D grid
blocks = (64 // SCALE, 64 // SCALE)  # test: scaled

# 2048x2048 input matrices  (test: scaled)
a = np.arange(n).reshape(2048 // SCALE,2048 // SCALE).astype(np.float32)
b = a.copy().astype(np.float32)

# 2048x2048 0-initialized output matrix
out = np.zeros_like(a).astype(np.float32)

d_a = cuda.to_device(a)
d_b = cuda.to_device(b)
d_out = cuda.to_device(out)

@cuda.jit
def matrix_add(a, b, out, coalesced):
    x, y = cuda.grid(2)

    if coalesced == True:
        out[y][x] = a[y][x] + b[y][x]
    else:
        out[x][y] = a[x][y] + b[x][y]

matrix_add[blocks, threads_per_block](d_a, d_b, d_out, True); cuda.synchronize
result = d_out.copy_to_host()
truth = a+b
RESULTS["matrix_add coalesced"] = np.array_equal(result, truth)

matrix_add[blocks, threads_per_block](d_a, d_b, d_out, False); cuda.synchronize
result = d_out.copy_to_host()
truth = a+b
RESULTS["matrix_add uncoalesced"] = np.array_equal(result, truth)

import numpy as np
from simt import types, cuda

@cuda.jit
def swap_with_shared(vector, swapped):
    # Allocate a 4 element vector containing int32 values in shared memory.
    temp = cuda.shared.array(4, dtype=types.int32)

    idx = cuda.grid(1)

    # Move an element from global memory into shared memory
    temp[idx] = vector[idx]

    # cuda.syncthreads will force all threads in the block to synchronize here, ...
    cuda.syncthreads()
    #...the following operation is reading an element written to shared memory by another thread.

    # Move an element from shared memory back into global memory
    swapped[idx] = temp[3 - cuda.threadIdx.x] # swap elements

vector = np.arange(4).astype(np.int32)
swapped = np.zeros_like(vector)

# Move host memory to device (global) memory
d_vector = cuda.to_device(vector)
d_swapped = cuda.to_device(swapped)

swap_with_shared[1, 4](d_vector, d_swapped)

# Move device (global) memory back to the host
result = d_swapped.copy_to_host()
RESULTS["swap_with_shared"] = result

from simt import cuda
import numpy as np

n = 4096*4096 // SCALE**2 # 16M  (test: scaled)

# 2D blocks
threads_per_block = (32, 32)
#2D grid
blocks = (128 // SCALE, 128 // SCALE)  # test: scaled

# 4096x4096 input and output matrices  (test: scaled)
a = np.arange(n).reshape((4096 // SCALE,4096 // SCALE)).astype(np.float32)
transposed = np.zeros_like(a).astype(np.float32)

d_a = cuda.to_device(a)
d_transposed = cuda.to_device(transposed)

@cuda.jit
def transpose(a, transposed):
    x, y = cuda.grid(2)

    transposed[x][y] = a[y][x]

transpose[blocks, threads_per_block](d_a, d_transposed); cuda.synchronize()
result = d_transposed.copy_to_host()
expected = a.T
RESULTS["transpose"] = np.array_equal(result, expected)

import numpy as np
from simt import cuda, types as numba_types

@cuda.jit
def tile_transpose(a, transposed):
    # `tile_transpose` assumes it is launched with a 32x32 block dimension,
    # and that `a` is a multiple of these dimensions.

    # 1) Create 32x32 shared memory array.
    tile = cuda.shared.array((32, 32), numba_types.float32)

    # Compute offsets into global input array. ...
    a_col = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    a_row = cuda.blockIdx.y * cuda.blockDim.y + cuda.threadIdx.y

    # 2) Make coalesced read from global memory into shared memory array. ...
    tile[cuda.threadIdx.y, cuda.threadIdx.x] = a[a_row, a_col]

    # 3) Wait for all threads in the block to finish updating shared memory.
    cuda.syncthreads()

    # 4) Calculate transposed location for the shared memory array tile ...
    t_col = cuda.blockIdx.y * cuda.blockDim.y + cuda.threadIdx.x
    t_row = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.y

    # 5) Write from shared memory (using thread indices) ...
    transposed[t_row, t_col] = tile[cuda.threadIdx.x, cuda.threadIdx.y]

d_transposed = cuda.to_device(transposed)
tile_transpose[blocks, threads_per_block](d_a, d_transposed); cuda.synchronize()
result = d_transposed.copy_to_host()
expected = a.T
RESULTS["tile_transpose"] = np.array_equal(result, expected)

@cuda.jit
def tile_transpose_conflict_free(a, transposed):
    # `tile_transpose` assumes it is launched with a 32x32 block dimension,
    # and that `a` is a multiple of these dimensions.

    # 1) Create 32x32 shared memory array with padding to avoid bank conflicts.
    tile = cuda.shared.array((32, 33), numba_types.float32)

    # Compute offsets into global input array.
    x = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    y = cuda.blockIdx.y * cuda.blockDim.y + cuda.threadIdx.y

    # 2) Make coalesced read from global memory into shared memory array. ...
    tile[cuda.threadIdx.y, cuda.threadIdx.x] = a[y, x]

    # 3) Wait for all threads in the block to finish updating shared memory.
    cuda.syncthreads()

    # 4) Calculate transposed location for the shared memory array tile ...
    t_x = cuda.blockIdx.y * cuda.blockDim.y + cuda.threadIdx.x
    t_y = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.y

    # 5) Write back to global memory, ...
    transposed[t_y, t_x] = tile[cuda.threadIdx.x, cuda.threadIdx.y]

d_transposed = cuda.to_device(transposed)
tile_transpose_conflict_free[blocks, threads_per_block](d_a, d_transposed); cuda.synchronize()
result = d_transposed.copy_to_host()
expected = a.T
RESULTS["tile_transpose_conflict_free"] = np.array_equal(result, expected)
