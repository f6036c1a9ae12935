# The whole-row top-k under compute-sanitizer: rows whose 16-bit candidates take 32-bit sort words
# (random, sorted), a row whose keys spread too far for them (its k-th and best of either sign),
# a masked row and a row of ties (the fallback rounds); float32 beside. Values must equal ATen's.
import sys, torch
torch.ops.load_library(sys.argv[1])
torch.manual_seed(0)
for dtype in (torch.bfloat16, torch.float16, torch.float32):
    x = torch.randn(6, 128256, device="cuda", dtype=dtype)
    x[1] = x[1].sort(descending=True).values
    x[2] = x[2] * 2.5 - 7
    x[2, 7] = 100  # the k-th near -1, the best 100: too far apart for 32-bit words
    x[3] = float("-inf")
    x[3, 11:100000:331] = 1.0
    x[4] = x[4].round()
    for largest in (True, False):
        v, i = torch.ops.triton_jit.topk(x, 1000, largest=largest)
        rv, _ = torch.topk(x, 1000, largest=largest)
        print(dtype, "largest" if largest else "smallest", "values equal:", torch.equal(v, rv),
              "indices pick them:", torch.equal(x.gather(1, i), v))
