"""A kernel module that asks the driver for device properties at import, which no machine without
a GPU can answer (tests/cpu/test_compile_bridge.cpp)."""
import triton
import triton.language as tl

NUM_SMS = triton.runtime.driver.active.utils.get_device_properties(0)["multiprocessor_count"]


@triton.jit
def one_per_sm(x_ptr):
    tl.store(x_ptr + tl.program_id(0), 1.0)
