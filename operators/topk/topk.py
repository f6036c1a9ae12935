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


# ---- radix select (types of 32 bits and less) --------------------------------------------------
# A row is cut into chunks of BLOCK elements, each held in registers: topk_radix_kernel finds the
# chunk's K-th best key digit by digit (a histogram per RADIX_BITS bits, most significant first)
# and writes the chunk's K best, unsorted, as candidates; rounds of it shrink a long row's
# candidates BLOCK / K-fold until topk_sort_kernel can sort them in one block and keep the first K.
# Each pass reads registers, not memory: the row is read once. A pass costs a chunk about as much
# as loading it (its histogram, prefix sum and reductions each synchronise the program), so for a
# small K a chunk first tries a bound from its group maxima that needs no pass at all.


@triton.jit
def _digit_pass(keys, live, prefix, k_left, SHIFT: tl.constexpr, WIDTH: tl.constexpr, FIRST: tl.constexpr):
    """One digit of the k_left-th largest live key among those whose bits above SHIFT + WIDTH are
    prefix's: the prefix with that digit, and what is left of k past the keys of larger digits."""
    BINS: tl.constexpr = 1 << WIDTH
    if FIRST:
        match = live
    else:
        match = live & (((keys ^ prefix) >> (SHIFT + WIDTH)) == 0)
    hist = tl.histogram(((keys >> SHIFT) & (BINS - 1)).to(tl.int32), BINS, mask=match)
    above = tl.sum(hist, axis=0) - tl.cumsum(hist, axis=0)  # matching keys with a larger digit
    pick = (above < k_left) & (above + hist >= k_left)
    digit = tl.sum(tl.where(pick, tl.arange(0, BINS), 0), axis=0)
    k_left -= tl.sum(tl.where(pick, above, 0), axis=0)
    return prefix | (digit.to(tl.uint32) << SHIFT), k_left


@triton.jit
def _kth_key(keys, live, k, LOW_SAME_BITS: tl.constexpr, RADIX_BITS: tl.constexpr):
    """The k-th largest of the live keys (1 <= k <= their count), and how many live keys are
    strictly larger, found RADIX_BITS at a time from the top (the last digit takes the bits left).
    tl.histogram counts with one warp ballot per bit of the bin and a popcount per bin a lane
    owns; 32 bins (5 bits, one a lane) took 14-23% less time than 256 over a float32 key, though
    they take seven passes to four, because a pass's cost is mostly its synchronisation. A
    16-bit float's key is a float32 key whose LOW_SAME_BITS lowest bits take no pass: they are
    zeros where the key's top bit is set and ones where it is clear (the key of a float flips
    every bit of one sign), so the digits above decide them."""
    FULL: tl.constexpr = (32 - LOW_SAME_BITS) // RADIX_BITS
    REST: tl.constexpr = (32 - LOW_SAME_BITS) % RADIX_BITS
    prefix = tl.zeros([], tl.uint32)
    k_left = k
    for i in tl.static_range(0, FULL):
        prefix, k_left = _digit_pass(keys, live, prefix, k_left, 32 - RADIX_BITS * (i + 1), RADIX_BITS, i == 0)
    if REST > 0:
        prefix, k_left = _digit_pass(keys, live, prefix, k_left, LOW_SAME_BITS, REST, FULL == 0)
    if LOW_SAME_BITS > 0:
        prefix = prefix | tl.where((prefix >> 31) == 0, (1 << LOW_SAME_BITS) - 1, 0).to(tl.uint32)
    return prefix, k - k_left


@triton.jit
def _exact_take(keys, live, k, LOW_SAME_BITS: tl.constexpr, RADIX_BITS: tl.constexpr):
    """The mask of the k best live keys, ties at the k-th taken by first position."""
    threshold, above = _kth_key(keys, live, tl.maximum(k, 1), LOW_SAME_BITS, RADIX_BITS)
    ties = live & (keys == threshold)
    return (k > 0) & ((live & (keys > threshold)) | (ties & (tl.cumsum(ties.to(tl.int32), axis=0) <= k - above)))


@triton.jit
def _kth_group_max(keys, live, k, BLOCK: tl.constexpr, GROUPS: tl.constexpr):
    """The k-th largest of the maxima of GROUPS groups of the live keys (k <= GROUPS): at least k
    keys are at or above it, so the k-th largest key is too. Any partition will do, so the
    compiler may take the elements each thread holds as a group (no exchange); the k-th largest
    maximum is the least of those with fewer than k maxima strictly above them (no sort)."""
    group_max = tl.max(tl.reshape(tl.where(live, keys, 0), [GROUPS, BLOCK // GROUPS], can_reorder=True), axis=1)
    rank = tl.sum((group_max[None, :] > group_max[:, None]).to(tl.int32), axis=1)
    return tl.min(tl.where(rank < k, group_max, tl.full([GROUPS], 0xFFFFFFFF, tl.uint32)), axis=0)


@triton.jit(do_not_specialize=["N", "K"])
def topk_radix_kernel(x_ptr, idx_in_ptr, keys_out_ptr, idx_out_ptr, N, K,
                      LARGEST: tl.constexpr, PARTIAL_IN: tl.constexpr, BLOCK: tl.constexpr, K_PAD: tl.constexpr,
                      RADIX_BITS: tl.constexpr = 5, GROUPS: tl.constexpr = 0, SLOTS: tl.constexpr = 0,
                      count_ptr=None, ONLY_OVER: tl.constexpr = 0):
    """Program (row, chunk): the K best of x[row, chunk * BLOCK:][:BLOCK] into keys_out/idx_out
    [row, chunk * K:][:K] (keys as int32 bit patterns, int32 positions; slots past the chunk's
    live elements get position -1). With PARTIAL_IN, x holds a previous round's keys and idx_in
    their positions (-1 for an empty slot).

    With GROUPS (K <= GROUPS), each chunk has SLOTS slots and may keep more than its K best: the
    K-th largest of the maxima of GROUPS equal groups bounds the K-th largest key from below, so
    every key at or above it is a candidate, and when they fit in SLOTS (nearly always on data that
    is not mostly ties) no digit pass is made; otherwise the passes pick exactly K.

    With ONLY_OVER, only rows whose whole-row candidate count (count_ptr) passed ONLY_OVER slots
    are done: the fallback of topk_rows_gather_kernel's rows that overflowed."""
    row = tl.program_id(0).to(tl.int64)
    if ONLY_OVER > 0:
        if tl.load(count_ptr + row) <= ONLY_OVER:
            return
    chunk = tl.program_id(1)
    chunks = tl.num_programs(1)
    offs = tl.arange(0, BLOCK)
    pos = chunk * BLOCK + offs
    live = pos < N
    # a 16-bit float's key is a float32 key: its low bits follow from its top bit
    IN: tl.constexpr = x_ptr.dtype.element_ty
    LOW_SAME_BITS: tl.constexpr = 16 if IN == tl.bfloat16 else (8 if IN == tl.float16 else 0)
    if PARTIAL_IN:
        keys = tl.load(x_ptr + row * N + pos, mask=live, other=0).to(tl.uint32, bitcast=True)
        idx = tl.load(idx_in_ptr + row * N + pos, mask=live, other=-1)
        live = live & (idx >= 0)
    else:
        x = tl.load(x_ptr + row * N + pos, mask=live, other=0)
        if x_ptr.dtype.element_ty == tl.int1:
            x = x.to(tl.int8)
        keys = _keys(x, LARGEST)
        idx = pos
    k = tl.minimum(K, tl.sum(live.to(tl.int32), axis=0))
    if GROUPS > 0:
        stride = SLOTS
        take = live & (keys >= _kth_group_max(keys, live, tl.maximum(k, 1), BLOCK, GROUPS))
        count = tl.sum(take.to(tl.int32), axis=0)
        if count > SLOTS:
            take = _exact_take(keys, live, k, LOW_SAME_BITS, RADIX_BITS)
            count = k
    else:
        stride = K
        take = _exact_take(keys, live, k, LOW_SAME_BITS, RADIX_BITS)
        count = k
    slot = tl.cumsum(take.to(tl.int32), axis=0) - 1
    base = (row * chunks + chunk) * stride
    tl.store(keys_out_ptr + base + slot, keys.to(tl.int32, bitcast=True), mask=take)
    tl.store(idx_out_ptr + base + slot, idx, mask=take)
    FILL: tl.constexpr = SLOTS if GROUPS > 0 else K_PAD
    empty = tl.arange(0, FILL)
    tl.store(idx_out_ptr + base + empty, tl.full([FILL], -1, tl.int32), mask=(empty >= count) & (empty < stride))


@triton.jit(do_not_specialize=["N", "K"])
def topk_sort_kernel(x_ptr, idx_in_ptr, values_ptr, indices_ptr, N, K,
                     LARGEST: tl.constexpr, PARTIAL_IN: tl.constexpr, BLOCK: tl.constexpr,
                     count_ptr=None, ONLY_OVER: tl.constexpr = 0):
    """Program (row): the K best of a row of at most BLOCK elements (or of a radix round's
    candidates, PARTIAL_IN), sorted best first, ties by the first position, into values/indices
    [row, :K]. A key and its position share one 64-bit word, so that one sort orders both.
    ONLY_OVER: the sort of topk_rows_gather_kernel's fallback, which does only the rows whose
    candidate count (count_ptr) passed ONLY_OVER."""
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK)
    live = offs < N
    if ONLY_OVER > 0:
        if tl.load(count_ptr + row) <= ONLY_OVER:
            return
    if PARTIAL_IN:
        keys = tl.load(x_ptr + row * N + offs, mask=live, other=0).to(tl.uint32, bitcast=True)
        idx = tl.load(idx_in_ptr + row * N + offs, mask=live, other=-1)
        live = live & (idx >= 0)
    else:
        x = tl.load(x_ptr + row * N + offs, mask=live, other=0)
        if x_ptr.dtype.element_ty == tl.int1:
            x = x.to(tl.int8)
        keys = _keys(x, LARGEST)
        idx = offs
    _sort_wide(keys, idx.to(tl.uint32, bitcast=True), live, values_ptr + row * K, indices_ptr + row * K, K, LARGEST,
               BLOCK)


# ---- one bound for a whole row (k of 65 to 1024 over long rows) ----------------------------------
# For a large k a chunk's group maxima bound nothing (k must not pass the groups), and the rounds
# above shrink a row of 128256 three times. Instead the whole row's group maxima give one bound:
# the k-th largest of them is at most the row's k-th largest key, and on random data about 1.1k
# keys are at or above it (groups of 16). Four launches: the maxima, their k-th largest (one
# program a row; its top 20 bits), the gather of every key at or above it into SLOTS candidates
# (an atomic count a row), and one sort. A group takes every G-th element (G groups), so that a
# sorted or trending row spreads its best keys over many groups instead of filling a few. A row
# whose keys at the bound do not fit (mostly ties, such as a masked row of -inf) is counted over
# SLOTS and done by the rounds above, which skip every other row (ONLY_OVER).
#
# The sort is most of such a call's time, and a 32-bit word sorts in well under half the time of
# a 64-bit one. Candidates of a 16-bit float all lie at or above the bound, so their keys less the
# bound's usually fit in the bits a position leaves free; topk_rows_sort_kernel then sorts one
# 32-bit word a candidate, and 64-bit words only for a row whose keys spread too far.


@triton.jit(do_not_specialize=["N", "G"])
def topk_group_max_kernel(x_ptr, maxima_ptr, N, G, LARGEST: tl.constexpr, GROUP: tl.constexpr, BLOCK: tl.constexpr):
    """Program (row, block of groups): maxima[row, j] = the largest key of x[row, j + i * G], i < GROUP."""
    row = tl.program_id(0).to(tl.int64)
    j = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    best = tl.zeros([BLOCK], tl.uint32)
    for i in tl.static_range(GROUP):
        pos = i * G + j
        live = (j < G) & (pos < N)
        x = tl.load(x_ptr + row * N + pos, mask=live, other=0)
        best = tl.maximum(best, tl.where(live, _keys(x, LARGEST), 0))
    tl.store(maxima_ptr + row * G + j, best.to(tl.int32, bitcast=True), mask=j < G)


@triton.jit(do_not_specialize=["G", "K"])
def topk_row_bound_kernel(maxima_ptr, bound_ptr, count_ptr, G, K, BLOCK: tl.constexpr):
    """Program (row): bound[row] = the top 20 bits of the K-th largest of the row's G group maxima
    (K <= G), the 12 below cleared; the row's candidate count starts at zero. Still at most the
    row's K-th key, and as good a bound: a 16-bit float's key has no significant bits below them,
    and a float32 one gains about 1/2048 of a binade's keys; the three digit passes of those bits
    were 5.2 of the 13.5 us the exact K-th took (H200, docs/performance.md)."""
    BOUND_BITS: tl.constexpr = 20
    RADIX_BITS: tl.constexpr = 5
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK)
    live = offs < G
    keys = tl.load(maxima_ptr + row * G + offs, mask=live, other=0).to(tl.uint32, bitcast=True)
    bound = tl.zeros([], tl.uint32)
    k_left = K
    for i in tl.static_range(0, BOUND_BITS // RADIX_BITS):
        bound, k_left = _digit_pass(keys, live, bound, k_left, 32 - RADIX_BITS * (i + 1), RADIX_BITS, i == 0)
    tl.store(bound_ptr + row, bound.to(tl.int32, bitcast=True))
    tl.store(count_ptr + row, 0)


@triton.jit(do_not_specialize=["N", "SLOTS"])
def topk_rows_gather_kernel(x_ptr, bound_ptr, count_ptr, keys_out_ptr, idx_out_ptr, N, SLOTS,
                            LARGEST: tl.constexpr, BLOCK: tl.constexpr):
    """Program (row, chunk): every key of x[row, chunk * BLOCK:][:BLOCK] at or above the row's
    bound into the row's SLOTS candidates (keys as int32 bit patterns, int32 positions), in the
    order the row's count hands out; past SLOTS only counted."""
    row = tl.program_id(0).to(tl.int64)
    pos = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    live = pos < N
    x = tl.load(x_ptr + row * N + pos, mask=live, other=0)
    keys = _keys(x, LARGEST)
    take = live & (keys >= tl.load(bound_ptr + row).to(tl.uint32, bitcast=True))
    taken = tl.sum(take.to(tl.int32), axis=0)
    if taken > 0:
        slot = tl.atomic_add(count_ptr + row, taken, sem="relaxed") + tl.cumsum(take.to(tl.int32), axis=0) - 1
        fits = take & (slot < SLOTS)
        tl.store(keys_out_ptr + row * SLOTS + slot, keys.to(tl.int32, bitcast=True), mask=fits)
        tl.store(idx_out_ptr + row * SLOTS + slot, pos, mask=fits)


@triton.jit
def _low_bits_of_key(high, KEY_SHIFT: tl.constexpr):
    """The KEY_SHIFT low bits a 16-bit float's 32-bit key has under its high part: _keys flips a
    negative value's bits, so they are all ones where the key's top bit is clear, zeros where set."""
    return tl.where((high >> (31 - KEY_SHIFT)) != 0, 0, (1 << KEY_SHIFT) - 1).to(tl.uint32)


@triton.jit
def _sort_narrow(keys, idx, live, floor, values_ptr, indices_ptr, K, POS_BITS, LARGEST: tl.constexpr,
                 KEY_SHIFT: tl.constexpr, BLOCK: tl.constexpr):
    """The K best of 16-bit float keys whose key >> KEY_SHIFT less `floor` fits above POS_BITS
    bits: one 32-bit word each, that difference over the reversed position."""
    offs = tl.arange(0, BLOCK)
    position_mask = (tl.full([], 1, tl.uint32) << POS_BITS.to(tl.uint32)) - 1
    word = (((keys >> KEY_SHIFT) - floor) << POS_BITS.to(tl.uint32)) | (position_mask - idx)
    # an empty lane's 0 reads as the position 2**POS_BITS - 1, past every real one
    word = tl.sort(tl.where(live, word, 0), descending=True)
    high = (word >> POS_BITS.to(tl.uint32)) + floor
    key = (high << KEY_SHIFT) | _low_bits_of_key(high, KEY_SHIFT)
    best = offs < K
    tl.store(values_ptr + offs, _value(key, LARGEST, values_ptr.dtype.element_ty), mask=best)
    tl.store(indices_ptr + offs, (position_mask - (word & position_mask)).to(tl.int64), mask=best)


@triton.jit
def _sort_wide(keys, idx, live, values_ptr, indices_ptr, K, LARGEST: tl.constexpr, BLOCK: tl.constexpr):
    """The K best of 32-bit keys: key and reversed position share a 64-bit word."""
    offs = tl.arange(0, BLOCK)
    word = (keys.to(tl.uint64) << 32) | (0xFFFFFFFF - idx).to(tl.uint64)
    word = tl.sort(tl.where(live, word, 0), descending=True)
    best = offs < K
    tl.store(values_ptr + offs, _value((word >> 32).to(tl.uint32), LARGEST, values_ptr.dtype.element_ty), mask=best)
    tl.store(indices_ptr + offs, (0xFFFFFFFF - (word & 0xFFFFFFFF)).to(tl.int64), mask=best)


@triton.jit(do_not_specialize=["SLOTS", "K", "POS_BITS"])
def topk_rows_sort_kernel(keys_ptr, idx_ptr, count_ptr, bound_ptr, values_ptr, indices_ptr, SLOTS, K, POS_BITS,
                          LARGEST: tl.constexpr, KEY_SHIFT: tl.constexpr, BLOCK: tl.constexpr):
    """Program (row): the K best of topk_rows_gather_kernel's count_ptr[row] candidates, sorted
    best first, ties by the first position, into values/indices [row, :K]; a row with more than
    SLOTS (they did not fit) is left to the fallback. Positions are below 2**POS_BITS.

    KEY_SHIFT > 0 (16-bit floats: the low bits of their 32-bit keys carry nothing): where every
    candidate's key >> KEY_SHIFT is within 2**(32 - POS_BITS) of the bound's, one 32-bit word a
    candidate holds that difference above its reversed position; otherwise, and for other types,
    key and position share a 64-bit word."""
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK)
    count = tl.load(count_ptr + row)
    if count > SLOTS:
        return
    live = offs < count
    keys = tl.load(keys_ptr + row * SLOTS + offs, mask=live, other=0).to(tl.uint32, bitcast=True)
    idx = tl.load(idx_ptr + row * SLOTS + offs, mask=live, other=0).to(tl.uint32, bitcast=True)
    if KEY_SHIFT > 0:
        floor = tl.load(bound_ptr + row).to(tl.uint32, bitcast=True) >> KEY_SHIFT
        spread = tl.max(tl.where(live, keys >> KEY_SHIFT, floor), axis=0) - floor
        if spread < (tl.full([], 1, tl.uint32) << (32 - POS_BITS).to(tl.uint32)):
            _sort_narrow(keys, idx, live, floor, values_ptr + row * K, indices_ptr + row * K, K, POS_BITS, LARGEST,
                         KEY_SHIFT, BLOCK)
        else:
            _sort_wide(keys, idx, live, values_ptr + row * K, indices_ptr + row * K, K, LARGEST, BLOCK)
    else:
        _sort_wide(keys, idx, live, values_ptr + row * K, indices_ptr + row * K, K, LARGEST, BLOCK)
