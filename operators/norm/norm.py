"""layer_norm and rms_norm over the last N elements of each row (rows contiguous), in float32
(float64 for double); also the residual add fused before rms_norm. One program per row: the row
stays in registers when it fits (ONE_PASS), else it is read once for the statistics and once more
to write."""
import triton
import triton.language as tl


@triton.jit
def _row(x_ptr, res_ptr, res_out_ptr, offsets, mask, COMPUTE: tl.constexpr, HAS_RES: tl.constexpr,
         WRITE_RES: tl.constexpr):
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    if HAS_RES:
        # residual + x, rounded to the input's type as a separate add would be
        x = (x.to(COMPUTE) + tl.load(res_ptr + offsets, mask=mask, other=0.0).to(COMPUTE)).to(x_ptr.dtype.element_ty)
        if WRITE_RES:
            tl.store(res_out_ptr + offsets, x, mask=mask)
    return x.to(COMPUTE)


@triton.jit(do_not_specialize=["M", "eps"])
def norm_kernel(x_ptr, res_ptr, res_out_ptr, w_ptr, b_ptr, out_ptr, M, N, eps,
                RMS: tl.constexpr, HAS_RES: tl.constexpr, HAS_W: tl.constexpr, HAS_B: tl.constexpr,
                ONE_PASS: tl.constexpr, BLOCK_N: tl.constexpr, INDEX64: tl.constexpr, GDC: tl.constexpr = False):
    if GDC:  # launched dependent on the kernel before it (common/dependent_launch.h): its writes first
        tl.inline_asm_elementwise("griddepcontrol.wait; griddepcontrol.launch_dependents; // $0", "=r", [],
                                  dtype=tl.int32, is_pure=False, pack=1)
    row = tl.program_id(0)
    if INDEX64:
        row = row.to(tl.int64)
    COMPUTE: tl.constexpr = tl.float64 if x_ptr.dtype.element_ty == tl.float64 else tl.float32
    OUT: tl.constexpr = out_ptr.dtype.element_ty
    base = row * N
    cols = tl.arange(0, BLOCK_N)
    if ONE_PASS:
        mask = cols < N
        x = _row(x_ptr, res_ptr, res_out_ptr, base + cols, mask, COMPUTE, HAS_RES, True)
        if RMS:
            mean = 0.0
            var = tl.sum(x * x, axis=0) / N
        else:
            mean = tl.sum(x, axis=0) / N
            centred = tl.where(mask, x - mean, 0.0)
            var = tl.sum(centred * centred, axis=0) / N
        rstd = 1.0 / tl.sqrt(var + eps)
        y = (x - mean) * rstd
        if HAS_W:
            y = y * tl.load(w_ptr + cols, mask=mask, other=0.0).to(COMPUTE)
        if HAS_B:
            y = y + tl.load(b_ptr + cols, mask=mask, other=0.0).to(COMPUTE)
        tl.store(out_ptr + base + cols, y.to(OUT), mask=mask)
    else:
        acc = tl.zeros([BLOCK_N], COMPUTE)
        for n0 in range(0, N, BLOCK_N):
            mask = n0 + cols < N
            x = _row(x_ptr, res_ptr, res_out_ptr, base + n0 + cols, mask, COMPUTE, HAS_RES, True)
            acc += x if not RMS else x * x
        if RMS:
            mean = 0.0
            var = tl.sum(acc, axis=0) / N
        else:
            mean = tl.sum(acc, axis=0) / N
            acc = tl.zeros([BLOCK_N], COMPUTE)
            for n0 in range(0, N, BLOCK_N):
                mask = n0 + cols < N
                x = _row(x_ptr, res_ptr, res_out_ptr, base + n0 + cols, mask, COMPUTE, HAS_RES, False)
                centred = tl.where(mask, x - mean, 0.0)
                acc += centred * centred
            var = tl.sum(acc, axis=0) / N
        rstd = 1.0 / tl.sqrt(var + eps)
        for n0 in range(0, N, BLOCK_N):
            mask = n0 + cols < N
            if HAS_RES:
                x = tl.load(res_out_ptr + base + n0 + cols, mask=mask, other=0.0).to(COMPUTE)
            else:
                x = tl.load(x_ptr + base + n0 + cols, mask=mask, other=0.0).to(COMPUTE)
            y = (x - mean) * rstd
            if HAS_W:
                y = y * tl.load(w_ptr + n0 + cols, mask=mask, other=0.0).to(COMPUTE)
            if HAS_B:
                y = y + tl.load(b_ptr + n0 + cols, mask=mask, other=0.0).to(COMPUTE)
            tl.store(out_ptr + base + n0 + cols, y.to(OUT), mask=mask)
