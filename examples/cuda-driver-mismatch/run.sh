#!/usr/bin/env bash
# A fresh environment pulled a torch built for CUDA 12.8 onto a node whose
# driver supports CUDA 12.1. The node's driver is played by the fake driver
# libraries the tests build (libcuda.so.1 and libnvidia-ml.so.1 exporting the
# real symbols, loaded through the same dlopen path), the torch by a
# site-packages tree with its version file. `ftdiag preflight` names the
# mismatch and the fix before training; the job, run anyway, crashes in
# cuInit, and `ftdiag analyze` explains the crash with the same mismatch.
source "$(dirname "$0")/../setup.sh" fake_libcuda fake_libnvml
fakes=build/default/tests/gpu_fakes
export FTDIAG_LIBCUDA="$PWD/$fakes/libcuda.so.1" FTDIAG_LIBNVML="$PWD/$fakes/libnvidia-ml.so.1"
export FAKE_CUDA_DRIVER_VERSION=12010 FAKE_NVML_DRIVER_VERSION=530.30.02
export FAKE_GPU_COUNT=2 FAKE_GPU_NAME="NVIDIA H100 80GB HBM3" FAKE_GPU_CC=9.0
export PYTHONPATH="$PWD/examples/cuda-driver-mismatch/site-packages"
unset CUDA_VISIBLE_DEVICES LD_LIBRARY_PATH
out=examples/output/cuda-driver-mismatch
rm -rf "$out"
echo "== ftdiag preflight -- python3 train.py (before training)"
"$FTDIAG" preflight -- /usr/bin/python3 examples/cuda-driver-mismatch/train.py || true
echo
echo "== ftdiag run (the job run anyway: cuInit crashes in the driver)"
set +e
# The fake driver crashes in cuInit for the job alone (FAKE_CUDA_INIT in its
# environment), as a real one crashes on the kernels of a too-new build;
# ftdiag's own GPU probe still reads the driver's version.
"$FTDIAG" run --job-dir "$out" -- env FAKE_CUDA_INIT=segv /usr/bin/python3 examples/cuda-driver-mismatch/train.py
echo "== the job's exit status as the shell saw it: $?"
set -e
echo
echo "== ftdiag analyze $out"
"$FTDIAG" analyze "$out"
