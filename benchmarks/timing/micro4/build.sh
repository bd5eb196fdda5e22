#!/bin/sh
# Build the micro4 cubin (sm_90a) into $1 (default: this folder) and the PTX the model runs.
set -e
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:-$HERE}
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
$NVCC -arch=sm_90a -O3 -cubin "$HERE/streams.cu" -o "$OUT/streams.cubin"
$NVCC -arch=sm_90 -O3 -ptx "$HERE/streams.cu" -o "$HERE/streams.ptx"
