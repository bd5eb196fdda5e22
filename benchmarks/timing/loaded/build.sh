#!/bin/sh
# loaded.ptx (the model's input, kept in the repo) and loaded.cubin (for the H200) from loaded.cu
set -e
cd "$(dirname "$0")"
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
$NVCC -ptx -arch=sm_90a -O3 -o loaded.ptx loaded.cu
${PTXAS:-/usr/local/cuda/bin/ptxas} -arch=sm_90a -O3 -o loaded.cubin loaded.ptx
