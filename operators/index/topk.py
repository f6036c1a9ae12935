"""topk along the rows of a contiguous (M, N) view, by repeated selection: a program holds a chunk
of a row in registers and takes its best element K times (ties to the first index, NaN the
largest, as in ATen). A row longer than one chunk is done in two launches: each chunk's K best,
then the K best of those. Results come out sorted. For 32-bit and smaller types an element's key
and position share one 64-bit word, so that each step is one reduction."""
import triton
import triton.language as tl


@triton.jit
def _keys(x, LARGEST: tl.constexpr):
    """Unsigned keys ordered as the values are (NaN above everything), reversed when not LARGEST;
    32 bits for types of 32 bits and less."""
    IN: tl.constexpr = x.dtype
    if IN == tl.float64:
        bits = tl.where(x != x, 0x7FF8000000000000, x.to(tl.uint64, bitcast=True))
        key = bits ^ tl.where((bits >> 63) != 0, 0xFFFFFFFFFFFFFFFF, 0x8000000000000000).to(tl.uint64)
        if not LARGEST:
            key = key ^ 0xFFFFFFFFFFFFFFFF
    elif IN.is_floating():
        xf = x.to(tl.float32)
        bits = tl.where(xf != xf, 0x7FC00000, xf.to(tl.uint32, bitcast=True)).to(tl.uint32)
        key = bits ^ tl.where((bits >> 31) != 0, 0xFFFFFFFF, 0x80000000).to(tl.uint32)
        if not LARGEST:
            key = key ^ 0xFFFFFFFF
    elif IN == tl.int64:
        key = x.to(tl.uint64, bitcast=True) ^ 0x8000000000000000
        if not LARGEST:
            key = key ^ 0xFFFFFFFFFFFFFFFF
    elif IN == tl.uint64:
        key = x
        if not LARGEST:
            key = key ^ 0xFFFFFFFFFFFFFFFF
    else:
        if IN.is_int_signed():
            key = x.to(tl.int32).to(tl.uint32, bitcast=True) ^ 0x80000000
        else:
            key = x.to(tl.uint32)
        if not LARGEST:
            key = key ^ 0xFFFFFFFF
    return key


@triton.jit
def _value(key, LARGEST: tl.constexpr, OUT: tl.constexpr):
    """The value of a 32-bit key (_keys inverted): selection needs no second read of memory."""
    if not LARGEST:
        key = key ^ 0xFFFFFFFF
    if OUT.is_floating():
        bits = key ^ tl.where((key >> 31) != 0, 0x80000000, 0xFFFFFFFF).to(tl.uint32)
        return bits.to(tl.float32, bitcast=True).to(OUT)
    elif OUT == tl.int1:
        return key != 0
    elif OUT.is_int_signed():
        return (key ^ 0x80000000).to(tl.int32, bitcast=True).to(OUT)
    else:
        return key.to(OUT)


@triton.jit(do_not_specialize=["N", "CHUNK", "K"])
def topk_kernel(x_ptr, idx_in_ptr, values_ptr, indices_ptr, N, CHUNK, K,
                LARGEST: tl.constexpr, PARTIAL_IN: tl.constexpr, BLOCK: tl.constexpr):
    """Program (row, chunk): the K best of x[row, chunk * CHUNK : (chunk + 1) * CHUNK], written to
    values/indices[row, chunk * K : (chunk + 1) * K]. With PARTIAL_IN, the row's indices come from
    idx_in (candidates of a first launch) rather than from their position."""
    row = tl.program_id(0).to(tl.int64)
    chunk = tl.program_id(1)
    chunks = tl.num_programs(1)
    offs = tl.arange(0, BLOCK)
    start = chunk * CHUNK
    mask = (offs < CHUNK) & (start + offs < N)
    row_ptr = x_ptr + row * N + start
    x = tl.load(row_ptr + offs, mask=mask, other=0)
    if x_ptr.dtype.element_ty == tl.int1:
        x = x.to(tl.int8)
    keys = _keys(x, LARGEST)
    out_base = (row * chunks + chunk) * K
    if PARTIAL_IN:
        idx = tl.load(idx_in_ptr + row * N + start + offs, mask=mask, other=0)
    OUT: tl.constexpr = values_ptr.dtype.element_ty
    if keys.dtype == tl.uint32:
        # key above, BLOCK - position below: the largest word is the best key, first position
        words = tl.where(mask, (keys.to(tl.uint64) << 32) | (BLOCK - offs).to(tl.uint64), 0)
        for r in range(K):
            best = tl.max(words, axis=0)
            pick = BLOCK - (best & 0xFFFFFFFF).to(tl.int32)
            words = tl.where(offs == pick, 0, words)
            tl.store(values_ptr + out_base + r, _value((best >> 32).to(tl.uint32), LARGEST, OUT))
            if PARTIAL_IN:
                tl.store(indices_ptr + out_base + r, tl.sum(tl.where(offs == pick, idx, 0), axis=0))
            else:
                tl.store(indices_ptr + out_base + r, (start + pick).to(tl.int64))
    else:
        taken = ~mask
        for r in range(K):
            candidate = tl.where(taken, 0, keys)
            best = tl.max(candidate, axis=0)
            first_best = tl.min(tl.where((candidate == best) & ~taken, offs, BLOCK), axis=0)
            first_free = tl.min(tl.where(taken, BLOCK, offs), axis=0)
            pick = tl.where(best == 0, first_free, first_best)
            taken = taken | (offs == pick)
            tl.store(values_ptr + out_base + r, tl.load(row_ptr + pick))
            if PARTIAL_IN:
                tl.store(indices_ptr + out_base + r, tl.sum(tl.where(offs == pick, idx, 0), axis=0))
            else:
                tl.store(indices_ptr + out_base + r, (start + pick).to(tl.int64))
