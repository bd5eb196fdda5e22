#!/bin/sh
# Build the micro2 cubins (sm_90a) into $1 (default: this folder). nvcc 13.0, ptxas 13.5 for wgmma.
set -e
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:-$HERE}
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
PTXAS=${PTXAS:-/work/venv/lib/python3.11/site-packages/nvidia/cu13/bin/ptxas}
$NVCC -arch=sm_90a -O3 -cubin "$HERE/micro2.cu" -o "$OUT/micro2.cubin"
$NVCC -arch=sm_90a -O3 -cubin "$HERE/check_kernels.cu" -o "$OUT/check_kernels.cubin"
$NVCC -arch=sm_90a -O3 -cubin "$HERE/atomics.cu" -o "$OUT/atomics.cubin"
$NVCC -arch=sm_90 -O3 -ptx "$HERE/atomics.cu" -o "$HERE/atomics.ptx"
$NVCC -arch=sm_90 -O3 -ptx "$HERE/check_kernels.cu" -o "$HERE/check_kernels.ptx"
python3 "$HERE/gen_wgmma.py"
$PTXAS -arch=sm_90a "$HERE/wgmma.ptx" -o "$OUT/wgmma.cubin"
$NVCC -arch=sm_90a -O3 -cubin "$HERE/async.cu" -o "$OUT/async.cubin"
$NVCC -arch=sm_90a -O3 -cubin "$HERE/wmma.cu" -o "$OUT/wmma.cubin"
$NVCC -arch=sm_90a -O3 -ptx "$HERE/wmma.cu" -o "$HERE/wmma.ptx"
$NVCC -arch=sm_90a -O3 -ptx "$HERE/async.cu" -o "$HERE/async.ptx"
$NVCC -arch=sm_90a -O3 -cubin "$HERE/cluster.cu" -o "$OUT/cluster.cubin"
$NVCC -arch=sm_90 -O3 -ptx "$HERE/cluster.cu" -o "$HERE/cluster.ptx"
