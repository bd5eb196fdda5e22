#!/bin/sh
# mixed.ptx / barrier.ptx (the model's input, kept in the repo) and their cubins (for the H200)
set -e
cd "$(dirname "$0")"
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
for f in mixed barrier; do
    $NVCC -ptx -arch=sm_90a -O3 -o $f.ptx $f.cu
    ${PTXAS:-/usr/local/cuda/bin/ptxas} -arch=sm_90a -O3 -o $f.cubin $f.ptx
done
