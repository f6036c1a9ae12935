"""A library's helper that asks torch.cuda about the GPU at import, as flash-linear-attention's
does (tests/cpu/test_compile_bridge.cpp: without a GPU the error names this line)."""
import torch

MAJOR, MINOR = torch.cuda.get_device_capability(0)
