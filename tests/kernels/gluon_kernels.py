"""@gluon.jit kernels for tests/python/test_gluon.py: a TMA tile copy through a host descriptor
(whose shared-memory layout is part of the kernel's type), a kernel with a parameter named like a
launch option, and a warp-specialized one (a worker warp hands a value to the default warps)."""
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import fence_async_shared, mbarrier, tma


@gluon.jit
def copy_tile(in_desc, out_desc):
    """One block of in_desc to the same place of out_desc, through shared memory."""
    smem = gl.allocate_shared_memory(in_desc.dtype, in_desc.block_type.shape, in_desc.layout)
    bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(bar, count=1)
    row = gl.program_id(0) * in_desc.block_type.shape[0]
    mbarrier.expect(bar, in_desc.block_type.nbytes)
    tma.async_copy_global_to_shared(in_desc, [row, 0], bar, smem)
    mbarrier.wait(bar, phase=0)
    mbarrier.invalidate(bar)
    fence_async_shared()
    tma.async_copy_shared_to_global(out_desc, [row, 0], smem)
    tma.store_wait(pendings=0)


@gluon.jit
def scale(x_ptr, out_ptr, n, factor, BLOCK: gl.constexpr, num_warps: gl.constexpr):
    """out = x * factor; `num_warps` is both a parameter and the launch option."""
    layout: gl.constexpr = gl.BlockedLayout([1], [32], [num_warps], [0])
    offsets = gl.program_id(0) * BLOCK + gl.arange(0, BLOCK, layout=layout)
    mask = offsets < n
    gl.store(out_ptr + offsets, gl.load(x_ptr + offsets, mask=mask) * factor, mask=mask)


@gluon.jit
def convert_with_layout(x_ptr, out_ptr, n, BLOCK: gl.constexpr, DT: gl.constexpr,
                        layout: gl.constexpr = gl.BlockedLayout([1], [32], [4], [0])):
    """out = x as DT, over a layout the caller passes (as Gluon's tutorials pass theirs) or the default."""
    offsets = gl.program_id(0) * BLOCK + gl.arange(0, BLOCK, layout=layout)
    mask = offsets < n
    gl.store(out_ptr + offsets, gl.load(x_ptr + offsets, mask=mask).to(DT), mask=mask)


@gluon.jit
def _add_one(x_ptr, out_ptr, n, BLOCK: gl.constexpr):
    layout: gl.constexpr = gl.BlockedLayout([1], [32], [gl.num_warps()], [0])
    offsets = gl.program_id(0) * BLOCK + gl.arange(0, BLOCK, layout=layout)
    mask = offsets < n
    gl.store(out_ptr + offsets, gl.load(x_ptr + offsets, mask=mask) + 1, mask=mask)


@gluon.jit
def _idle(x_ptr, n):
    pass


@gluon.jit
def specialized_add_one(x_ptr, out_ptr, n, BLOCK: gl.constexpr):
    """out = x + 1 in the default partition, beside an idle worker warp."""
    gl.warp_specialize([(_add_one, (x_ptr, out_ptr, n, BLOCK)), (_idle, (x_ptr, n))], [1], [24])
