#!/bin/bash
# Record compute-sanitizer's output on the synchronization cases of tests/tools/sanitizer/planted_sync.cu
# (mbarrier, cp.async, bulk copies, fences, block-divergent barriers) as goldens for ptxvm's sanitizer.
# Run on the GPU machine from a folder holding planted_sync.cu, run_planted_sync.cu (and optionally
# a prebuilt run_planted_sync: nvcc -arch=sm_90 -lineinfo -o run_planted_sync run_planted_sync.cu);
# writes DEST/CASE.TOOL.txt.
#   tools/device/record_sanitizer_sync.sh SRC_DIR DEST_DIR
set -u
src=$1; dest=$2
mkdir -p "$dest"
cd "$src" || exit 2
{ compute-sanitizer --version; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } > "$dest/versions.txt" 2>&1
if command -v nvcc > /dev/null && nvcc -arch=sm_90 -lineinfo -o run_planted_sync_dev run_planted_sync.cu > "$dest/build.txt" 2>&1; then
    prog=./run_planted_sync_dev
else
    prog=./run_planted_sync; chmod +x "$prog"
fi
echo "program: $prog" >> "$dest/build.txt"
rec() {  # rec TOOL CASE
    timeout 60 compute-sanitizer --tool "$1" "$prog" "$2" > "$dest/$2.$1.txt" 2>&1
    echo "exit status $?" >> "$dest/$2.$1.txt"
}
export -f rec; export prog dest
{
    for c in mbar_race mbar_race_ok cp_async_race cp_async_race_ok cp_async_early bulk_race bulk_race_ok \
             fence_flag fence_flag_ok; do echo "racecheck $c"; done
    for c in divergent_block divergent_block_ok exit_before_barrier; do echo "synccheck $c"; done
} | xargs -P 4 -L 1 bash -c 'rec "$0" "$1"'
