#!/bin/sh
# walk.ptx (the model's input, kept in the repo) and walk.cubin (for the H200) from walk.cu
set -e
cd "$(dirname "$0")"
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
$NVCC -ptx -arch=sm_90a -O3 -o walk.ptx walk.cu
${PTXAS:-/usr/local/cuda/bin/ptxas} -arch=sm_90a -O3 -o walk.cubin walk.ptx
