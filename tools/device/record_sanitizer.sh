#!/bin/bash
# Record compute-sanitizer's output on the planted-bug kernels (tests/tools/sanitizer/planted.cu)
# as goldens for ptxvm's sanitizer. Run on the GPU machine from a folder holding planted.cu,
# run_planted.cu (and optionally a prebuilt run_planted); writes DEST/CASE.TOOL.txt.
#   tools/device/record_sanitizer.sh SRC_DIR DEST_DIR
set -u
src=$1; dest=$2
mkdir -p "$dest"
cd "$src" || exit 2
{ compute-sanitizer --version; nvcc --version | tail -2; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } > "$dest/versions.txt" 2>&1
if nvcc -arch=sm_90 -lineinfo -o run_planted_dev run_planted.cu > "$dest/build.txt" 2>&1; then prog=./run_planted_dev; else prog=./run_planted; fi
echo "program: $prog" >> "$dest/build.txt"
rec() {  # rec TOOL CASE [extra options]
    local tool=$1 case=$2; shift 2
    timeout 60 compute-sanitizer --tool "$tool" "$@" "$prog" "$case" > "$dest/$case.$tool.txt" 2>&1
    echo "exit status $?" >> "$dest/$case.$tool.txt"
}
for c in oob_write oob_read oob_shared misaligned heap_leak; do
    rec memcheck $c --leak-check full; rec memcheck ${c}_ok --leak-check full
done
for c in double_free use_after_free; do rec memcheck $c --leak-check full; done
for c in race_raw race_war race_waw race_global; do rec racecheck $c; rec racecheck ${c}_ok; done
for c in uninit_global uninit_shared; do rec initcheck $c; rec initcheck ${c}_ok; done
for c in divergent_barrier shfl_bad_mask; do rec synccheck $c; rec synccheck ${c}_ok; done
