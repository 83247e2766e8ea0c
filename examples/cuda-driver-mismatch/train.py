"""A job's first CUDA call, as torch makes it when it starts: cuInit through
the driver library. With a framework built for a CUDA newer than the driver
supports, some builds fail with an error and others crash in the driver."""
import ctypes
import os

ctypes.CDLL(os.environ.get("FTDIAG_LIBCUDA", "libcuda.so.1")).cuInit(0)
print("CUDA initialised", flush=True)
