#!/bin/sh
# Build the constant-memory microbenchmarks: const.cubin (sm_90a) into $1 (default: this folder)
# and const.ptx, the PTX the model runs.
set -e
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:-$HERE}
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
$NVCC -arch=sm_90a -O3 -cubin "$HERE/const.cu" -o "$OUT/const.cubin"
$NVCC -arch=sm_90 -O3 -ptx "$HERE/const.cu" -o "$HERE/const.ptx"
