"""@triton.jit functions that the kernels of jit_function_kernels.py take as arguments, in a
module of their own (as libraries keep them), one of them calling a helper of a third module."""
import triton
import triton.language as tl

from activation_helpers import leaky_slope


@triton.jit
def relu(x):
    return tl.maximum(x, 0.0)


@triton.jit
def square(x):
    return x * x


@triton.jit
def leaky(x):
    return tl.where(x > 0, x, x * leaky_slope())
