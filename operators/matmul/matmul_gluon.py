"""Hopper (sm_90) GEMMs in Gluon: C = A @ B (+ bias), A [M, K] row-major, B K-major (a weight
[N, K], as nn.Linear keeps it) or N-major ([K, N]), C [M, N] row-major, fp16 or bf16 in, fp32
accumulation.

One persistent program per SM walks its tiles in grouped order (GROUP_M rows of tiles share the
B tiles they read, which stay in L2). Each program is warp-specialized:

- a producer partition of one warp issues the TMA loads of A and B into a ring of NUM_STAGES
  shared-memory stages, each completing on its `ready` mbarrier, and waits for the consumers to
  release a stage (its `empty` mbarrier) before it loads it again; it runs ahead across tiles, so
  the next tile's loads overlap this tile's epilogue;
- the default partition (num_warps warps, one or two warpgroups) issues asynchronous wgmma on each
  stage as it lands, keeps one in flight (wait(1)), releases a stage once the wgmma that read it
  has completed, and writes the tile through shared memory with a TMA store that it waits for
  only before it reuses that buffer.

Decode-sized products (M up to 64 tokens) swap the operands (SWAP_AB): the weight's rows fill
wgmma's 64-row M side and the few tokens its N side (8 to 64 wide), so no tensor-core work is
spent on padding rows; the tile is written back transposed.

matmul_pingpong_kernel gives the consumer side to two warpgroups that take a program's tiles in
turn, so that one's epilogue runs under the other's products (see "Ping-pong" below).

matmul_sliced_kernel makes the swapped product's tiles of two to four 64-row slices of the weight,
a consumer warpgroup each, so that 128 to 512 rows can take tiles sized for one wave (192 weight
rows, which no power-of-two block is; see "Sliced tiles" below).

matmul_stream_k_kernel is the same program for products whose tiles leave the last wave partly
empty (128 to 512 rows): that wave's K blocks are shared out evenly between the programs, and a
tile cut between programs is summed by the one that adds its last piece (see "Stream-K" below).

The tensor maps are made on the device from pointers, sizes and strides (their shared-memory
layouts are the kernel's to choose), so a C++ caller passes what it passes to any kernel. Needs a
Triton with Gluon (3.5 or newer) and sm_90.
"""
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import (fence_async_shared, mbarrier, tma, warpgroup_mma,
                                                              warpgroup_mma_wait)

from gluon_layouts import nvmma_layout, wgmma_layout


# Shared memory one block may opt into on sm_90 (227 KB), less a reserve for the mbarriers.
SHARED_MEMORY_BYTES = 232448 - 1024
# Register budgets (setmaxnreg): the producer warp's, and matmul_pingpong_kernel's second consumer
# warpgroup's (Triton gives the first, the default partition, what is left of the file: as much).
PRODUCER_REGS = gl.constexpr(40)
PINGPONG_CONSUMER_REGS = gl.constexpr(232)


def stages_that_fit(tile_r, tile_c, block_k, element_bytes, most=8, epilogues=1):
    """The deepest ring of at most `most` stages that fits in shared memory beside the epilogue
    buffers (two in matmul_pingpong_kernel): a decode tile of 64 x 64 x 128 holds six stages, not
    eight."""
    stage = (tile_r + tile_c) * block_k * element_bytes
    epilogue = tile_r * tile_c * element_bytes * epilogues
    return max(2, min(most, (SHARED_MEMORY_BYTES - epilogue) // stage))


@gluon.jit
def _tile_of(t, num_pid_m, num_pid_n, GROUP_M: gl.constexpr):
    """Tile t in grouped order: GROUP_M rows of tiles, column by column."""
    per_group = GROUP_M * num_pid_n
    first_m = (t // per_group) * GROUP_M
    rows = gl.minimum(num_pid_m - first_m, GROUP_M)
    pid_m = first_m + (t % per_group) % rows
    pid_n = (t % per_group) // rows
    return pid_m, pid_n


@gluon.jit
def _advance(index, phase, NUM_STAGES: gl.constexpr):
    following = index + 1
    wraps = following == NUM_STAGES
    return gl.where(wraps, 0, following), gl.where(wraps, phase ^ 1, phase)


@gluon.jit
def _stage_before(index, NUM_STAGES: gl.constexpr):
    return gl.where(index == 0, NUM_STAGES - 1, index - 1)


@gluon.jit
def _load_k_range(x_desc, w_desc, x_bufs, w_bufs, ready, empty, off_r, off_c, k_lo, k_hi, index, phase,
                  BLOCK_K: gl.constexpr, NUM_STAGES: gl.constexpr, W_KMAJOR: gl.constexpr, SWAP_AB: gl.constexpr,
                  SLICES: gl.constexpr = 1):
    """Loads one tile's operands from column k_lo of K up to k_hi, a stage at a time; a tile of
    SLICES slices (swapped only) loads its rows' operand as that many blocks of x_desc."""
    for k in range(k_lo, k_hi, BLOCK_K):
        mbarrier.wait(empty.index(index), phase)
        bar = ready.index(index)
        mbarrier.expect(bar, SLICES * x_desc.block_type.nbytes + w_desc.block_type.nbytes)
        if SWAP_AB:  # x_desc: the weight [N, K]; w_desc: the activations [M, K]
            for s in gl.static_range(SLICES):
                tma.async_copy_global_to_shared(x_desc, [off_r + s * x_desc.block_type.shape[0], k], bar,
                                                x_bufs.index(index * SLICES + s))
            tma.async_copy_global_to_shared(w_desc, [off_c, k], bar, w_bufs.index(index))
        else:
            tma.async_copy_global_to_shared(x_desc, [off_r, k], bar, x_bufs.index(index))
            if W_KMAJOR:
                tma.async_copy_global_to_shared(w_desc, [off_c, k], bar, w_bufs.index(index))
            else:
                tma.async_copy_global_to_shared(w_desc, [k, off_c], bar, w_bufs.index(index))
        index, phase = _advance(index, phase, NUM_STAGES)
    return index, phase


@gluon.jit
def _load_whole_tiles(x_desc, w_desc, x_bufs, w_bufs, ready, empty, tiles, num_pid_r, num_pid_c, K, index, phase,
                      TILE_R: gl.constexpr, TILE_C: gl.constexpr, BLOCK_K: gl.constexpr, GROUP_M: gl.constexpr,
                      NUM_STAGES: gl.constexpr, W_KMAJOR: gl.constexpr, SWAP_AB: gl.constexpr,
                      SLICES: gl.constexpr = 1):
    """Loads all of K for this program's tiles among the first `tiles`, one tile a program a turn."""
    for t in range(gl.program_id(0), tiles, gl.num_programs(0)):
        pid_r, pid_c = _tile_of(t, num_pid_r, num_pid_c, GROUP_M)
        index, phase = _load_k_range(x_desc, w_desc, x_bufs, w_bufs, ready, empty, pid_r * TILE_R, pid_c * TILE_C, 0,
                                     K, index, phase, BLOCK_K, NUM_STAGES, W_KMAJOR, SWAP_AB, SLICES)
    return index, phase


@gluon.jit
def _load_loop(x_desc, w_desc, x_bufs, w_bufs, ready, empty, ROWS, COLS, K, TILE_R: gl.constexpr,
              TILE_C: gl.constexpr, BLOCK_K: gl.constexpr, GROUP_M: gl.constexpr, NUM_STAGES: gl.constexpr,
              W_KMAJOR: gl.constexpr, SWAP_AB: gl.constexpr, SLICES: gl.constexpr = 1):
    # Tiles are [TILE_R, TILE_C] of the accumulator: rows of A (or of the weight when SWAP_AB).
    num_pid_r = gl.cdiv(ROWS, TILE_R)
    num_pid_c = gl.cdiv(COLS, TILE_C)
    index = gl.to_tensor(0)
    phase = gl.to_tensor(1)  # a fresh stage is free: the first wait on `empty` passes
    _load_whole_tiles(x_desc, w_desc, x_bufs, w_bufs, ready, empty, num_pid_r * num_pid_c, num_pid_r, num_pid_c, K,
                      index, phase, TILE_R, TILE_C, BLOCK_K, GROUP_M, NUM_STAGES, W_KMAJOR, SWAP_AB, SLICES)


@gluon.jit
def _mma_k_range(x_bufs, w_bufs, ready, empty, k_begin, k_end, index, phase, acc_layout: gl.constexpr,
                 TILE_R: gl.constexpr, TILE_C: gl.constexpr, NUM_STAGES: gl.constexpr, W_KMAJOR: gl.constexpr,
                 SWAP_AB: gl.constexpr, SLICE: gl.constexpr = 0, SLICES: gl.constexpr = 1):
    """One tile's product over its K blocks k_begin to k_end (exclusive), as the stages land; every
    stage it read is released. Zeros when the range is empty. TILE_R is the rows of this
    warpgroup's slice, SLICE of SLICES, of a sliced tile."""
    acc = gl.zeros((TILE_R, TILE_C), dtype=gl.float32, layout=acc_layout)
    for kk in range(k_begin, k_end):
        mbarrier.wait(ready.index(index), phase)
        if SWAP_AB or W_KMAJOR:
            w_tile = w_bufs.index(index).permute((1, 0))  # [BLOCK_K, TILE_C] as wgmma's B
        else:
            w_tile = w_bufs.index(index)
        acc = warpgroup_mma(x_bufs.index(index * SLICES + SLICE), w_tile, acc, is_async=True, use_acc=kk > k_begin)
        # At most one wgmma in flight: the one before has read its stage, which is free again.
        # The stage is derived from this one rather than carried in a second loop variable:
        # Triton 3.6 compiled such a carried stage as loop-invariant, and the ring deadlocked
        # on its second wrap.
        acc = warpgroup_mma_wait(num_outstanding=1, deps=(acc, ))
        mbarrier.arrive(empty.index(_stage_before(index, NUM_STAGES)), count=1, pred=kk > k_begin)
        index, phase = _advance(index, phase, NUM_STAGES)
    acc = warpgroup_mma_wait(num_outstanding=0, deps=(acc, ))
    # The last stage is free; the producer is loading the next tile's meanwhile.
    mbarrier.arrive(empty.index(_stage_before(index, NUM_STAGES)), count=1, pred=k_end > k_begin)
    return acc, index, phase


@gluon.jit
def _store_tile(acc, dtype: gl.constexpr, c_desc, c_smem, c_ptr, bias_ptr, stride_cm, off_r, off_c, ROWS, COLS,
                acc_layout: gl.constexpr, TILE_R: gl.constexpr, TILE_C: gl.constexpr, SWAP_AB: gl.constexpr,
                HAS_BIAS: gl.constexpr, STORE_BY_TMA: gl.constexpr = False):
    """Writes a finished fp32 tile to C (of `dtype`), with the bias added. A swapped tile is
    stored from registers, or, STORE_BY_TMA, transposed into c_smem ([TILE_C, TILE_R]: stmatrix's
    transposing form) and on by TMA (c_desc over C in [TILE_C, TILE_R] blocks)."""
    if SWAP_AB and STORE_BY_TMA:
        if HAS_BIAS:
            rows_layout: gl.constexpr = gl.SliceLayout(1, acc_layout)
            n = off_r + gl.arange(0, TILE_R, layout=rows_layout)
            acc = acc + gl.expand_dims(gl.load(bias_ptr + n, mask=n < ROWS, other=0.0).to(gl.float32), 1)
        tma.store_wait(pendings=0)  # the last tile's store has read c_smem
        c_smem.store(gl.permute(acc.to(dtype), (1, 0)))
        fence_async_shared()
        tma.async_copy_shared_to_global(c_desc, [off_c, off_r], c_smem)
    elif SWAP_AB:
        # acc is C^T: rows index N (the weight's), columns index M (tokens). Few tokens: store
        # straight from registers, each thread its own elements, masked at both edges.
        rows_layout: gl.constexpr = gl.SliceLayout(1, acc_layout)
        cols_layout: gl.constexpr = gl.SliceLayout(0, acc_layout)
        n = off_r + gl.arange(0, TILE_R, layout=rows_layout)
        m = off_c + gl.arange(0, TILE_C, layout=cols_layout)
        if HAS_BIAS:
            acc = acc + gl.expand_dims(gl.load(bias_ptr + n, mask=n < ROWS, other=0.0).to(gl.float32), 1)
        offsets = gl.expand_dims(m, 0) * stride_cm + gl.expand_dims(n, 1)
        mask = (gl.expand_dims(n, 1) < ROWS) & (gl.expand_dims(m, 0) < COLS)
        gl.store(c_ptr + offsets, acc.to(dtype), mask=mask)
    else:
        if HAS_BIAS:
            cols_layout: gl.constexpr = gl.SliceLayout(0, acc_layout)
            n = off_c + gl.arange(0, TILE_C, layout=cols_layout)
            acc = acc + gl.expand_dims(gl.load(bias_ptr + n, mask=n < COLS, other=0.0).to(gl.float32), 0)
        tma.store_wait(pendings=0)  # the last tile's store has read c_smem
        c_smem.store(acc.to(dtype))
        fence_async_shared()
        tma.async_copy_shared_to_global(c_desc, [off_r, off_c], c_smem)


@gluon.jit
def _mma_whole_tiles(x_bufs, w_bufs, ready, empty, c_desc, c_smem, c_ptr, bias_ptr, stride_cm, tiles, num_pid_r,
                     num_pid_c, ROWS, COLS, k_tiles, index, phase, acc_layout: gl.constexpr, TILE_R: gl.constexpr,
                     TILE_C: gl.constexpr, GROUP_M: gl.constexpr, NUM_STAGES: gl.constexpr, W_KMAJOR: gl.constexpr,
                     SWAP_AB: gl.constexpr, HAS_BIAS: gl.constexpr, SLICE: gl.constexpr = 0,
                     SLICES: gl.constexpr = 1, STORE_BY_TMA: gl.constexpr = False):
    """Multiplies and stores this program's tiles among the first `tiles`, as _load_whole_tiles
    loads them; of a sliced tile, slice SLICE's rows."""
    dtype: gl.constexpr = x_bufs.dtype
    SLICE_R: gl.constexpr = TILE_R // SLICES
    for t in range(gl.program_id(0), tiles, gl.num_programs(0)):
        pid_r, pid_c = _tile_of(t, num_pid_r, num_pid_c, GROUP_M)
        off_r = pid_r * TILE_R + SLICE * SLICE_R
        off_c = pid_c * TILE_C
        acc, index, phase = _mma_k_range(x_bufs, w_bufs, ready, empty, 0, k_tiles, index, phase, acc_layout, SLICE_R,
                                         TILE_C, NUM_STAGES, W_KMAJOR, SWAP_AB, SLICE, SLICES)
        _store_tile(acc, dtype, c_desc, c_smem, c_ptr, bias_ptr, stride_cm, off_r, off_c, ROWS, COLS, acc_layout,
                    SLICE_R, TILE_C, SWAP_AB, HAS_BIAS, STORE_BY_TMA)
    return index, phase


@gluon.jit
def _mma_loop(x_bufs, w_bufs, ready, empty, c_desc, c_ptr, bias_ptr, stride_cm, ROWS, COLS, K,
              TILE_R: gl.constexpr, TILE_C: gl.constexpr, BLOCK_K: gl.constexpr, GROUP_M: gl.constexpr,
              NUM_STAGES: gl.constexpr, W_KMAJOR: gl.constexpr, SWAP_AB: gl.constexpr, HAS_BIAS: gl.constexpr,
              num_warps: gl.constexpr):
    dtype: gl.constexpr = x_bufs.dtype
    acc_layout: gl.constexpr = wgmma_layout(TILE_R, TILE_C, num_warps, dtype.primitive_bitwidth)
    num_pid_r = gl.cdiv(ROWS, TILE_R)
    num_pid_c = gl.cdiv(COLS, TILE_C)
    index = gl.to_tensor(0)
    phase = gl.to_tensor(0)
    if SWAP_AB:
        c_smem = 0  # not used: a swapped tile is stored from registers
    else:
        c_smem = gl.allocate_shared_memory(dtype, [TILE_R, TILE_C], nvmma_layout([TILE_R, TILE_C], dtype))
    _mma_whole_tiles(x_bufs, w_bufs, ready, empty, c_desc, c_smem, c_ptr, bias_ptr, stride_cm,
                     num_pid_r * num_pid_c, num_pid_r, num_pid_c, ROWS, COLS, gl.cdiv(K, BLOCK_K), index, phase,
                     acc_layout, TILE_R, TILE_C, GROUP_M, NUM_STAGES, W_KMAJOR, SWAP_AB, HAS_BIAS)
    if not SWAP_AB:
        tma.store_wait(pendings=0)


@gluon.jit
def _operand_descriptors(x_ptr, w_ptr, ROWS, COLS, K, stride_x, stride_w, TILE_R: gl.constexpr, TILE_C: gl.constexpr,
                         BLOCK_K: gl.constexpr, W_KMAJOR: gl.constexpr, SWAP_AB: gl.constexpr,
                         SLICES: gl.constexpr = 1):
    dtype: gl.constexpr = x_ptr.dtype.element_ty
    SLICE_R: gl.constexpr = TILE_R // SLICES
    x_desc = tma.make_tensor_descriptor(x_ptr, [ROWS, K], [stride_x, 1], [SLICE_R, BLOCK_K],
                                        nvmma_layout([SLICE_R, BLOCK_K], dtype))
    if SWAP_AB or W_KMAJOR:
        w_desc = tma.make_tensor_descriptor(w_ptr, [COLS, K], [stride_w, 1], [TILE_C, BLOCK_K],
                                            nvmma_layout([TILE_C, BLOCK_K], dtype))
    else:
        w_desc = tma.make_tensor_descriptor(w_ptr, [K, COLS], [stride_w, 1], [BLOCK_K, TILE_C],
                                            nvmma_layout([BLOCK_K, TILE_C], dtype))
    return x_desc, w_desc


@gluon.jit
def _producer(x_ptr, w_ptr, stride_x, stride_w, x_bufs, w_bufs, ready, empty, ROWS, COLS, K, TILE_R: gl.constexpr,
              TILE_C: gl.constexpr, BLOCK_K: gl.constexpr, GROUP_M: gl.constexpr, NUM_STAGES: gl.constexpr,
              W_KMAJOR: gl.constexpr, SWAP_AB: gl.constexpr, SLICES: gl.constexpr = 1):
    # The warps that issue a TMA make its tensor map: a map written by other warps would need
    # their proxy fences to reach this one.
    x_desc, w_desc = _operand_descriptors(x_ptr, w_ptr, ROWS, COLS, K, stride_x, stride_w, TILE_R, TILE_C, BLOCK_K,
                                          W_KMAJOR, SWAP_AB, SLICES)
    _load_loop(x_desc, w_desc, x_bufs, w_bufs, ready, empty, ROWS, COLS, K, TILE_R, TILE_C, BLOCK_K, GROUP_M,
               NUM_STAGES, W_KMAJOR, SWAP_AB, SLICES)


@gluon.jit
def _consumer(x_bufs, w_bufs, ready, empty, c_ptr, bias_ptr, stride_c, ROWS, COLS, K, TILE_R: gl.constexpr,
              TILE_C: gl.constexpr, BLOCK_K: gl.constexpr, GROUP_M: gl.constexpr, NUM_STAGES: gl.constexpr,
              W_KMAJOR: gl.constexpr, SWAP_AB: gl.constexpr, HAS_BIAS: gl.constexpr, num_warps: gl.constexpr):
    dtype: gl.constexpr = x_bufs.dtype
    if SWAP_AB:
        c_desc = 0  # not used: a swapped tile is stored from registers
    else:
        c_desc = tma.make_tensor_descriptor(c_ptr, [ROWS, COLS], [stride_c, 1], [TILE_R, TILE_C],
                                            nvmma_layout([TILE_R, TILE_C], dtype))
    _mma_loop(x_bufs, w_bufs, ready, empty, c_desc, c_ptr, bias_ptr, stride_c, ROWS, COLS, K, TILE_R, TILE_C, BLOCK_K,
              GROUP_M, NUM_STAGES, W_KMAJOR, SWAP_AB, HAS_BIAS, num_warps)


@gluon.jit
def _ring(dtype: gl.constexpr, TILE_R: gl.constexpr, TILE_C: gl.constexpr, BLOCK_K: gl.constexpr,
          NUM_STAGES: gl.constexpr, W_KMAJOR: gl.constexpr, SWAP_AB: gl.constexpr, CONSUMER_WARPS: gl.constexpr,
          SLICES: gl.constexpr = 1):
    """The shared-memory stages of both operands and their ready/empty barriers. A partition's
    mbarrier.arrive is one arrival, made by its first thread (the PTX predicates it on the thread
    index modulo the partition's threads): a stage is empty once the consumers that read it (one,
    or one a slice) have arrived, ready once the producer has (with the bytes of every load). A
    sliced tile's rows' operand is SLICES blocks a stage, stage i's slice s at i * SLICES + s."""
    SLICE_R: gl.constexpr = TILE_R // SLICES
    x_bufs = gl.allocate_shared_memory(dtype, [NUM_STAGES * SLICES, SLICE_R, BLOCK_K],
                                       nvmma_layout([SLICE_R, BLOCK_K], dtype))
    if SWAP_AB or W_KMAJOR:
        w_bufs = gl.allocate_shared_memory(dtype, [NUM_STAGES, TILE_C, BLOCK_K],
                                           nvmma_layout([TILE_C, BLOCK_K], dtype))
    else:
        w_bufs = gl.allocate_shared_memory(dtype, [NUM_STAGES, BLOCK_K, TILE_C],
                                           nvmma_layout([BLOCK_K, TILE_C], dtype))
    ready = gl.allocate_shared_memory(gl.int64, [NUM_STAGES, 1], mbarrier.MBarrierLayout())
    empty = gl.allocate_shared_memory(gl.int64, [NUM_STAGES, 1], mbarrier.MBarrierLayout())
    for i in gl.static_range(NUM_STAGES):
        mbarrier.init(ready.index(i), count=1)
        mbarrier.init(empty.index(i), count=SLICES)
    return x_bufs, w_bufs, ready, empty


@gluon.jit
def matmul_ws_kernel(x_ptr, w_ptr, c_ptr, bias_ptr, ROWS, COLS, K, stride_x, stride_w, stride_c,
                     TILE_R: gl.constexpr, TILE_C: gl.constexpr, BLOCK_K: gl.constexpr, GROUP_M: gl.constexpr,
                     NUM_STAGES: gl.constexpr, W_KMAJOR: gl.constexpr, SWAP_AB: gl.constexpr,
                     HAS_BIAS: gl.constexpr, num_warps: gl.constexpr):
    """The accumulator is ROWS x COLS in [TILE_R, TILE_C] tiles: (M, N), or (N, M) when SWAP_AB.
    x is its rows' operand, [ROWS, K] (A, or the weight when SWAP_AB); w its columns', [COLS, K]
    when K-major or swapped (the weight, or A), else [K, COLS]; c is C, [M, N], row stride
    stride_c. Rows of x and w are stride_x and stride_w apart; their last dimension is contiguous.
    The tensor maps are made on the device, once a program, by the partition that uses them."""
    x_bufs, w_bufs, ready, empty = _ring(x_ptr.dtype.element_ty, TILE_R, TILE_C, BLOCK_K, NUM_STAGES, W_KMAJOR,
                                         SWAP_AB, num_warps)
    gl.warp_specialize([
        (_consumer, (x_bufs, w_bufs, ready, empty, c_ptr, bias_ptr, stride_c, ROWS, COLS, K, TILE_R, TILE_C, BLOCK_K,
                     GROUP_M, NUM_STAGES, W_KMAJOR, SWAP_AB, HAS_BIAS, num_warps)),
        (_producer, (x_ptr, w_ptr, stride_x, stride_w, x_bufs, w_bufs, ready, empty, ROWS, COLS, K, TILE_R, TILE_C,
                     BLOCK_K, GROUP_M, NUM_STAGES, W_KMAJOR, SWAP_AB)),
    ], [1], [PRODUCER_REGS])


@gluon.jit
def matmul_ws_desc_kernel(x_desc, w_desc, c_desc, c_ptr, bias_ptr, ROWS, COLS, K, stride_c, GROUP_M: gl.constexpr,
                          NUM_STAGES: gl.constexpr, W_KMAJOR: gl.constexpr, SWAP_AB: gl.constexpr,
                          HAS_BIAS: gl.constexpr, num_warps: gl.constexpr):
    """matmul_ws_kernel over host tensor descriptors (Gluon's TensorDescriptor, NVMMA layouts):
    x_desc [ROWS, K] in [TILE_R, BLOCK_K] blocks, w_desc as matmul_ws_kernel's w, c_desc C in
    [TILE_R, TILE_C] blocks (any descriptor when SWAP_AB: c_ptr is written instead)."""
    TILE_R: gl.constexpr = x_desc.block_type.shape[0]
    BLOCK_K: gl.constexpr = x_desc.block_type.shape[1]
    if SWAP_AB or W_KMAJOR:
        TILE_C: gl.constexpr = w_desc.block_type.shape[0]
    else:
        TILE_C: gl.constexpr = w_desc.block_type.shape[1]
    x_bufs, w_bufs, ready, empty = _ring(x_desc.dtype, TILE_R, TILE_C, BLOCK_K, NUM_STAGES, W_KMAJOR, SWAP_AB,
                                         num_warps)
    gl.warp_specialize([
        (_mma_loop, (x_bufs, w_bufs, ready, empty, c_desc, c_ptr, bias_ptr, stride_c, ROWS, COLS, K, TILE_R, TILE_C,
                     BLOCK_K, GROUP_M, NUM_STAGES, W_KMAJOR, SWAP_AB, HAS_BIAS, num_warps)),
        (_load_loop, (x_desc, w_desc, x_bufs, w_bufs, ready, empty, ROWS, COLS, K, TILE_R, TILE_C, BLOCK_K, GROUP_M,
                      NUM_STAGES, W_KMAJOR, SWAP_AB)),
    ], [1], [PRODUCER_REGS])


# Sliced tiles: the products of 128 to 512 rows make one or two waves of tiles, and power-of-two
# tiles fill 132 SMs badly (Qwen2.5-7B's qkv at 512 rows: 144 tiles of 128 x 128, 72 of 128 x 256);
# cuBLAS sizes its tiles for one wave instead (192 weight rows x 128 tokens for Llama-3-8B's qkv at
# 512 rows: 128 tiles). Triton 3.6's Gluon allocates only power-of-two blocks, so a 192-row tile
# is made of three 64-row slices: the producer loads a stage's weight as three blocks beside one
# block of tokens, and each slice is its own consumer warpgroup (partition), with its own 64-row
# accumulator, reading the shared token block. A stage is empty once every slice has arrived.

SLICE_ROWS = gl.constexpr(64)  # one warpgroup's wgmma rows


@gluon.jit
def _sliced_consumer(x_bufs, w_bufs, ready, empty, c_ptr, bias_ptr, stride_c, ROWS, COLS, K, TILE_C: gl.constexpr,
                     BLOCK_K: gl.constexpr, GROUP_M: gl.constexpr, NUM_STAGES: gl.constexpr, HAS_BIAS: gl.constexpr,
                     SLICE: gl.constexpr, SLICES: gl.constexpr):
    dtype: gl.constexpr = x_bufs.dtype
    TILE_R: gl.constexpr = SLICE_ROWS * SLICES
    acc_layout: gl.constexpr = wgmma_layout(SLICE_ROWS, TILE_C, 4, dtype.primitive_bitwidth)
    # The slice is C's [TILE_C tokens, 64 weight rows] block, transposed on its way to shared memory.
    c_desc = tma.make_tensor_descriptor(c_ptr, [COLS, ROWS], [stride_c, 1], [TILE_C, SLICE_ROWS],
                                        nvmma_layout([TILE_C, SLICE_ROWS], dtype))
    c_smem = gl.allocate_shared_memory(dtype, [TILE_C, SLICE_ROWS], nvmma_layout([TILE_C, SLICE_ROWS], dtype))
    num_pid_r = gl.cdiv(ROWS, TILE_R)
    num_pid_c = gl.cdiv(COLS, TILE_C)
    _mma_whole_tiles(x_bufs, w_bufs, ready, empty, c_desc, c_smem, c_ptr, bias_ptr, stride_c, num_pid_r * num_pid_c,
                     num_pid_r, num_pid_c, ROWS, COLS, gl.cdiv(K, BLOCK_K), gl.to_tensor(0), gl.to_tensor(0),
                     acc_layout, TILE_R, TILE_C, GROUP_M, NUM_STAGES, True, True, HAS_BIAS, SLICE, SLICES, True)
    tma.store_wait(pendings=0)


@gluon.jit
def matmul_sliced_kernel(x_ptr, w_ptr, c_ptr, bias_ptr, ROWS, COLS, K, stride_x, stride_w, stride_c,
                         TILE_C: gl.constexpr, BLOCK_K: gl.constexpr, GROUP_M: gl.constexpr, NUM_STAGES: gl.constexpr,
                         SLICES: gl.constexpr, HAS_BIAS: gl.constexpr, num_warps: gl.constexpr):
    """matmul_ws_kernel's swapped product (x the weight [N, K], w the activations [M, K], both
    K-major; ROWS = N, COLS = M) in tiles of SLICES x 64 weight rows by TILE_C tokens, one consumer
    warpgroup a slice, each writing its slice by TMA (C's rows 16-byte aligned, as every operand's).
    num_warps must be 4 (the first slice's); SLICES 2 to 4; a program per SM at most; a ring of
    stages_that_fit(64 * SLICES, TILE_C, BLOCK_K, bytes) stages at most."""
    gl.static_assert(num_warps == 4, "matmul_sliced_kernel: num_warps is the first slice's warpgroup, 4")
    gl.static_assert(SLICES >= 2 and SLICES <= 4, "matmul_sliced_kernel: SLICES must be 2, 3 or 4")
    TILE_R: gl.constexpr = SLICE_ROWS * SLICES
    x_bufs, w_bufs, ready, empty = _ring(x_ptr.dtype.element_ty, TILE_R, TILE_C, BLOCK_K, NUM_STAGES, True, True,
                                         num_warps, SLICES)
    # Each slice's warpgroup's setmaxnreg budget: the SM's 64K registers, less the producer's, shared
    # by the slices' warpgroups of 128 threads, in multiples of 8.
    REGS: gl.constexpr = (65536 // 128 - PRODUCER_REGS) // SLICES // 8 * 8
    if SLICES == 2:
        gl.warp_specialize([
            (_sliced_consumer, (x_bufs, w_bufs, ready, empty, c_ptr, bias_ptr, stride_c, ROWS, COLS, K, TILE_C,
                                BLOCK_K, GROUP_M, NUM_STAGES, HAS_BIAS, 0, SLICES)),
            (_sliced_consumer, (x_bufs, w_bufs, ready, empty, c_ptr, bias_ptr, stride_c, ROWS, COLS, K, TILE_C,
                                BLOCK_K, GROUP_M, NUM_STAGES, HAS_BIAS, 1, SLICES)),
            (_producer, (x_ptr, w_ptr, stride_x, stride_w, x_bufs, w_bufs, ready, empty, ROWS, COLS, K, TILE_R, TILE_C,
                         BLOCK_K, GROUP_M, NUM_STAGES, True, True, SLICES)),
        ], [4, 1], [REGS, PRODUCER_REGS])
    elif SLICES == 3:
        gl.warp_specialize([
            (_sliced_consumer, (x_bufs, w_bufs, ready, empty, c_ptr, bias_ptr, stride_c, ROWS, COLS, K, TILE_C,
                                BLOCK_K, GROUP_M, NUM_STAGES, HAS_BIAS, 0, SLICES)),
            (_sliced_consumer, (x_bufs, w_bufs, ready, empty, c_ptr, bias_ptr, stride_c, ROWS, COLS, K, TILE_C,
                                BLOCK_K, GROUP_M, NUM_STAGES, HAS_BIAS, 1, SLICES)),
            (_sliced_consumer, (x_bufs, w_bufs, ready, empty, c_ptr, bias_ptr, stride_c, ROWS, COLS, K, TILE_C,
                                BLOCK_K, GROUP_M, NUM_STAGES, HAS_BIAS, 2, SLICES)),
            (_producer, (x_ptr, w_ptr, stride_x, stride_w, x_bufs, w_bufs, ready, empty, ROWS, COLS, K, TILE_R, TILE_C,
                         BLOCK_K, GROUP_M, NUM_STAGES, True, True, SLICES)),
        ], [4, 4, 1], [REGS, REGS, PRODUCER_REGS])
    else:
        gl.warp_specialize([
            (_sliced_consumer, (x_bufs, w_bufs, ready, empty, c_ptr, bias_ptr, stride_c, ROWS, COLS, K, TILE_C,
                                BLOCK_K, GROUP_M, NUM_STAGES, HAS_BIAS, 0, SLICES)),
            (_sliced_consumer, (x_bufs, w_bufs, ready, empty, c_ptr, bias_ptr, stride_c, ROWS, COLS, K, TILE_C,
                                BLOCK_K, GROUP_M, NUM_STAGES, HAS_BIAS, 1, SLICES)),
            (_sliced_consumer, (x_bufs, w_bufs, ready, empty, c_ptr, bias_ptr, stride_c, ROWS, COLS, K, TILE_C,
                                BLOCK_K, GROUP_M, NUM_STAGES, HAS_BIAS, 2, SLICES)),
            (_sliced_consumer, (x_bufs, w_bufs, ready, empty, c_ptr, bias_ptr, stride_c, ROWS, COLS, K, TILE_C,
                                BLOCK_K, GROUP_M, NUM_STAGES, HAS_BIAS, 3, SLICES)),
            (_producer, (x_ptr, w_ptr, stride_x, stride_w, x_bufs, w_bufs, ready, empty, ROWS, COLS, K, TILE_R, TILE_C,
                         BLOCK_K, GROUP_M, NUM_STAGES, True, True, SLICES)),
        ], [4, 4, 4, 1], [REGS, REGS, REGS, PRODUCER_REGS])


# Ping-pong: two consumer warpgroups take a program's tiles in turn (CUTLASS's "pingpong" kernel
# schedule). The producer loads every tile's stages in order; a warpgroup starts on its tile's
# stages once the other has finished the products of the tile before (a `turns` mbarrier each):
# while one writes its tile out (registers to shared memory, then a TMA store), the other keeps
# the tensor cores busy with the next tile. The whole-tile kernel leaves them idle for each
# epilogue instead. The turns also keep a warpgroup's wait on a stage within one wrap of the
# ring: an mbarrier tells phases apart by parity only, so a warpgroup waiting for a stage two
# loads ahead would take the older load's completion for its own.

@gluon.jit
def _pingpong_consumer(x_bufs, w_bufs, ready, empty, turns, c_ptr, bias_ptr, stride_c, ROWS, COLS, K,
                       TILE_R: gl.constexpr, TILE_C: gl.constexpr, BLOCK_K: gl.constexpr, GROUP_M: gl.constexpr,
                       NUM_STAGES: gl.constexpr, W_KMAJOR: gl.constexpr, HAS_BIAS: gl.constexpr,
                       WHICH: gl.constexpr):
    """Warpgroup WHICH (0 or 1) takes this program's tiles WHICH, WHICH + 2, ... in the order the
    producer loads them; its tiles' stages are the ring positions from tile ordinal x K blocks."""
    dtype: gl.constexpr = x_bufs.dtype
    acc_layout: gl.constexpr = wgmma_layout(TILE_R, TILE_C, 4, dtype.primitive_bitwidth)
    c_desc = tma.make_tensor_descriptor(c_ptr, [ROWS, COLS], [stride_c, 1], [TILE_R, TILE_C],
                                        nvmma_layout([TILE_R, TILE_C], dtype))
    c_smem = gl.allocate_shared_memory(dtype, [TILE_R, TILE_C], nvmma_layout([TILE_R, TILE_C], dtype))
    num_pid_r = gl.cdiv(ROWS, TILE_R)
    num_pid_c = gl.cdiv(COLS, TILE_C)
    k_tiles = gl.cdiv(K, BLOCK_K)
    programs = gl.num_programs(0)
    ordinal = WHICH
    for t in range(gl.program_id(0) + WHICH * programs, num_pid_r * num_pid_c, 2 * programs):
        position = ordinal * k_tiles
        index = position % NUM_STAGES
        phase = (position // NUM_STAGES) & 1
        pid_r, pid_c = _tile_of(t, num_pid_r, num_pid_c, GROUP_M)
        if ordinal > 0:  # the tile before is the other warpgroup's: wait for its products
            mbarrier.wait(turns.index(WHICH), ((ordinal - 1) // 2) & 1)
        acc, index, phase = _mma_k_range(x_bufs, w_bufs, ready, empty, 0, k_tiles, index, phase, acc_layout, TILE_R,
                                         TILE_C, NUM_STAGES, W_KMAJOR, False)
        mbarrier.arrive(turns.index(1 - WHICH), count=1)  # the next tile's products may start
        _store_tile(acc, dtype, c_desc, c_smem, c_ptr, bias_ptr, stride_c, pid_r * TILE_R, pid_c * TILE_C, ROWS, COLS,
                    acc_layout, TILE_R, TILE_C, False, HAS_BIAS)
        ordinal += 2
    tma.store_wait(pendings=0)


@gluon.jit
def matmul_pingpong_kernel(x_ptr, w_ptr, c_ptr, bias_ptr, ROWS, COLS, K, stride_x, stride_w, stride_c,
                           TILE_R: gl.constexpr, TILE_C: gl.constexpr, BLOCK_K: gl.constexpr, GROUP_M: gl.constexpr,
                           NUM_STAGES: gl.constexpr, W_KMAJOR: gl.constexpr, HAS_BIAS: gl.constexpr,
                           num_warps: gl.constexpr):
    """matmul_ws_kernel's product (not swapped: x is A [M, K], w the weight) with two consumer
    warpgroups taking the tiles in turn, each a [TILE_R, TILE_C] tile of its own (128 x 128 or
    64 x 256: one warpgroup's registers). num_warps must be 4 (the first warpgroup's); a program
    per SM at most, as matmul_ws_kernel."""
    gl.static_assert(num_warps == 4, "matmul_pingpong_kernel: num_warps is the first warpgroup's, 4")
    x_bufs, w_bufs, ready, empty = _ring(x_ptr.dtype.element_ty, TILE_R, TILE_C, BLOCK_K, NUM_STAGES, W_KMAJOR, False,
                                         num_warps)
    turns = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())  # warpgroup 0's, then 1's
    for i in gl.static_range(2):
        mbarrier.init(turns.index(i), count=1)
    gl.warp_specialize([
        (_pingpong_consumer, (x_bufs, w_bufs, ready, empty, turns, c_ptr, bias_ptr, stride_c, ROWS, COLS, K, TILE_R,
                              TILE_C, BLOCK_K, GROUP_M, NUM_STAGES, W_KMAJOR, HAS_BIAS, 0)),
        (_pingpong_consumer, (x_bufs, w_bufs, ready, empty, turns, c_ptr, bias_ptr, stride_c, ROWS, COLS, K, TILE_R,
                              TILE_C, BLOCK_K, GROUP_M, NUM_STAGES, W_KMAJOR, HAS_BIAS, 1)),
        (_producer, (x_ptr, w_ptr, stride_x, stride_w, x_bufs, w_bufs, ready, empty, ROWS, COLS, K, TILE_R, TILE_C,
                     BLOCK_K, GROUP_M, NUM_STAGES, W_KMAJOR, False)),
    ], [4, 1], [PINGPONG_CONSUMER_REGS, PRODUCER_REGS])


# Stream-K (Osama et al., "Stream-K: Work-centric Parallel Decomposition for Dense Matrix
# Multiplication on the GPU", 2023). A product of 128 to 512 rows makes one or two waves of tiles
# of which the last leaves SMs idle (Qwen2.5-7B's qkv at 512 rows: 144 tiles of 128 x 128 on 132
# SMs). Here whole waves still run one tile a program; the last partial wave, with the full wave
# before it, is cut by K block into equal shares, one a program. A tile cut between programs is
# finished by whichever program adds the last piece of it: every piece is written in fp32 to its
# program's slot of `partial`, then its K blocks are added to the tile's counter; the program that
# brings the counter to the tile's K blocks sums the pieces in program order (the same bits
# whoever is last), stores the tile and sets the counter back to zero. No program waits for
# another, so the programs need not all be resident at once. A program's share begins at most one
# piece inside a tile and ends at most one piece short of a tile's end: two slots a program.


def stream_k_programs(rows, cols, k, tile_r, tile_c, block_k, sms):
    """matmul_stream_k_kernel's grid: a program per SM, or one per K block where there are fewer,
    so that every program's share holds at least one K block."""
    tiles = -(-rows // tile_r) * -(-cols // tile_c)
    return max(1, min(sms, tiles * -(-k // block_k)))


@gluon.jit
def _stream_k_split(tiles, k_tiles, programs):
    """(tiles run whole, K blocks shared out): no sharing when the tiles fill whole waves; else the
    last partial wave and the full wave before it, or every tile when there are fewer than programs."""
    rest = tiles % programs
    shared = gl.where(rest == 0, 0, gl.where(tiles > programs, rest + programs, tiles))
    return tiles - shared, shared * k_tiles


@gluon.jit
def _share_start(program, blocks, programs):
    """The first shared K block of `program`; its share ends where the next program's starts."""
    return (program.to(gl.int64) * blocks // programs).to(gl.int32)


@gluon.jit
def _stream_k_plan(ROWS, COLS, K, TILE_R: gl.constexpr, TILE_C: gl.constexpr, BLOCK_K: gl.constexpr):
    """What both partitions of a program walk: (tile rows, tile columns, K blocks a tile, tiles run
    whole, shared K blocks, this program's first shared block, the block its share ends before)."""
    num_pid_r = gl.cdiv(ROWS, TILE_R)
    num_pid_c = gl.cdiv(COLS, TILE_C)
    k_tiles = gl.cdiv(K, BLOCK_K)
    programs = gl.num_programs(0)
    pid = gl.program_id(0)
    whole, blocks = _stream_k_split(num_pid_r * num_pid_c, k_tiles, programs)
    return (num_pid_r, num_pid_c, k_tiles, whole, blocks, _share_start(pid, blocks, programs),
            _share_start(pid + 1, blocks, programs))


@gluon.jit
def _share_part(s, begin, end, k_tiles):
    """(first K block of shared tile s, the first and the end of its blocks in this program's share)."""
    first = s * k_tiles
    return first, gl.maximum(begin - first, 0), gl.minimum(end - first, k_tiles)


@gluon.jit
def _stream_k_producer(x_ptr, w_ptr, stride_x, stride_w, x_bufs, w_bufs, ready, empty, ROWS, COLS, K,
                       TILE_R: gl.constexpr, TILE_C: gl.constexpr, BLOCK_K: gl.constexpr, GROUP_M: gl.constexpr,
                       NUM_STAGES: gl.constexpr, W_KMAJOR: gl.constexpr):
    x_desc, w_desc = _operand_descriptors(x_ptr, w_ptr, ROWS, COLS, K, stride_x, stride_w, TILE_R, TILE_C, BLOCK_K,
                                          W_KMAJOR, False)
    num_pid_r, num_pid_c, k_tiles, whole, blocks, begin, end = _stream_k_plan(ROWS, COLS, K, TILE_R, TILE_C, BLOCK_K)
    index = gl.to_tensor(0)
    phase = gl.to_tensor(1)  # a fresh stage is free: the first wait on `empty` passes
    index, phase = _load_whole_tiles(x_desc, w_desc, x_bufs, w_bufs, ready, empty, whole, num_pid_r, num_pid_c, K,
                                     index, phase, TILE_R, TILE_C, BLOCK_K, GROUP_M, NUM_STAGES, W_KMAJOR, False)
    for s in range(begin // k_tiles, gl.cdiv(end, k_tiles)):
        first, k_begin, k_end = _share_part(s, begin, end, k_tiles)
        pid_r, pid_c = _tile_of(whole + s, num_pid_r, num_pid_c, GROUP_M)
        index, phase = _load_k_range(x_desc, w_desc, x_bufs, w_bufs, ready, empty, pid_r * TILE_R, pid_c * TILE_C,
                                     k_begin * BLOCK_K, k_end * BLOCK_K, index, phase, BLOCK_K, NUM_STAGES, W_KMAJOR,
                                     False)


@gluon.jit
def _sum_pieces(partial_ptr, in_slot, first, k_tiles, blocks, programs, pid, acc_layout: gl.constexpr,
                TILE_R: gl.constexpr, TILE_C: gl.constexpr):
    """A cut tile (its K blocks from `first`) as the sum of its pieces in program order: from the
    program whose share holds `first` (its slot 1: a share's end) on through every program whose
    share starts inside the tile (slot 0: a share's beginning)."""
    q = pid
    while _share_start(q, blocks, programs) > first:
        q -= 1
    acc = gl.zeros((TILE_R, TILE_C), dtype=gl.float32, layout=acc_layout)
    start = _share_start(q, blocks, programs)
    while start < first + k_tiles:
        slot = gl.where(start > first, 0, 1)
        # .cg: from L2, where the other programs' pieces are, never a line this SM kept.
        acc += gl.load(partial_ptr + (q * 2 + slot) * (TILE_R * TILE_C) + in_slot, cache_modifier=".cg")
        q += 1
        start = _share_start(q, blocks, programs)
    return acc


@gluon.jit
def _stream_k_consumer(x_bufs, w_bufs, ready, empty, c_ptr, bias_ptr, partial_ptr, counts_ptr, stride_c, ROWS, COLS,
                       K, TILE_R: gl.constexpr, TILE_C: gl.constexpr, BLOCK_K: gl.constexpr, GROUP_M: gl.constexpr,
                       NUM_STAGES: gl.constexpr, W_KMAJOR: gl.constexpr, HAS_BIAS: gl.constexpr,
                       num_warps: gl.constexpr):
    dtype: gl.constexpr = x_bufs.dtype
    acc_layout: gl.constexpr = wgmma_layout(TILE_R, TILE_C, num_warps, dtype.primitive_bitwidth)
    c_desc = tma.make_tensor_descriptor(c_ptr, [ROWS, COLS], [stride_c, 1], [TILE_R, TILE_C],
                                        nvmma_layout([TILE_R, TILE_C], dtype))
    c_smem = gl.allocate_shared_memory(dtype, [TILE_R, TILE_C], nvmma_layout([TILE_R, TILE_C], dtype))
    rows = gl.arange(0, TILE_R, layout=gl.SliceLayout(1, acc_layout))
    cols = gl.arange(0, TILE_C, layout=gl.SliceLayout(0, acc_layout))
    in_slot = gl.expand_dims(rows, 1) * TILE_C + gl.expand_dims(cols, 0)
    num_pid_r, num_pid_c, k_tiles, whole, blocks, begin, end = _stream_k_plan(ROWS, COLS, K, TILE_R, TILE_C, BLOCK_K)
    programs = gl.num_programs(0)
    pid = gl.program_id(0)
    index = gl.to_tensor(0)
    phase = gl.to_tensor(0)
    index, phase = _mma_whole_tiles(x_bufs, w_bufs, ready, empty, c_desc, c_smem, c_ptr, bias_ptr, stride_c, whole,
                                    num_pid_r, num_pid_c, ROWS, COLS, k_tiles, index, phase, acc_layout, TILE_R, TILE_C,
                                    GROUP_M, NUM_STAGES, W_KMAJOR, False, HAS_BIAS)
    for s in range(begin // k_tiles, gl.cdiv(end, k_tiles)):
        first, k_begin, k_end = _share_part(s, begin, end, k_tiles)
        acc, index, phase = _mma_k_range(x_bufs, w_bufs, ready, empty, k_begin, k_end, index, phase, acc_layout,
                                         TILE_R, TILE_C, NUM_STAGES, W_KMAJOR, False)
        finished = k_end - k_begin == k_tiles
        if (not finished) and (k_end > k_begin):  # an empty share (more programs than blocks) adds nothing
            slot = gl.where(begin > first, 0, 1)  # this share began inside the tile, or ends in it
            gl.store(partial_ptr + (pid * 2 + slot) * (TILE_R * TILE_C) + in_slot, acc)
            gl.thread_barrier()  # every warp's part is written before the count says so
            done = gl.atomic_add(counts_ptr + s, k_end - k_begin, sem="acq_rel", scope="gpu") + (k_end - k_begin)
            finished = done == k_tiles
            if finished:
                acc = _sum_pieces(partial_ptr, in_slot, first, k_tiles, blocks, programs, pid, acc_layout, TILE_R,
                                  TILE_C)
                gl.atomic_xchg(counts_ptr + s, 0, sem="relaxed", scope="gpu")  # for the next launch
        if finished:
            pid_r, pid_c = _tile_of(whole + s, num_pid_r, num_pid_c, GROUP_M)
            _store_tile(acc, dtype, c_desc, c_smem, c_ptr, bias_ptr, stride_c, pid_r * TILE_R, pid_c * TILE_C, ROWS,
                        COLS, acc_layout, TILE_R, TILE_C, False, HAS_BIAS)
    tma.store_wait(pendings=0)


@gluon.jit
def matmul_stream_k_kernel(x_ptr, w_ptr, c_ptr, bias_ptr, partial_ptr, counts_ptr, ROWS, COLS, K, stride_x, stride_w,
                           stride_c, TILE_R: gl.constexpr, TILE_C: gl.constexpr, BLOCK_K: gl.constexpr,
                           GROUP_M: gl.constexpr, NUM_STAGES: gl.constexpr, W_KMAJOR: gl.constexpr,
                           HAS_BIAS: gl.constexpr, num_warps: gl.constexpr):
    """matmul_ws_kernel's product (not swapped: x is A [M, K], w the weight) with the last waves
    in stream-K, over a grid of stream_k_programs(). partial_ptr: fp32 scratch of (programs, 2,
    TILE_R, TILE_C); counts_ptr: 2 x programs int32 zeros, zero again when the kernel returns.
    Two launches at once must not share a scratch. K must be at least 1."""
    x_bufs, w_bufs, ready, empty = _ring(x_ptr.dtype.element_ty, TILE_R, TILE_C, BLOCK_K, NUM_STAGES, W_KMAJOR, False,
                                         num_warps)
    gl.warp_specialize([
        (_stream_k_consumer, (x_bufs, w_bufs, ready, empty, c_ptr, bias_ptr, partial_ptr, counts_ptr, stride_c, ROWS,
                              COLS, K, TILE_R, TILE_C, BLOCK_K, GROUP_M, NUM_STAGES, W_KMAJOR, HAS_BIAS, num_warps)),
        (_stream_k_producer, (x_ptr, w_ptr, stride_x, stride_w, x_bufs, w_bufs, ready, empty, ROWS, COLS, K, TILE_R,
                              TILE_C, BLOCK_K, GROUP_M, NUM_STAGES, W_KMAJOR)),
    ], [1], [PRODUCER_REGS])
