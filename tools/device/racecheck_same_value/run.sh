#!/usr/bin/env bash
# On the GPU machine: build same_value.cu and count, per kernel, the hazards compute-sanitizer's
# racecheck reports (each hazard names two threads: two lines per hazard).
set -euo pipefail
cd "$(dirname "$0")"
nvcc -arch=sm_90 -o /tmp/same_value same_value.cu
compute-sanitizer --tool racecheck --racecheck-report all --print-limit 100000 /tmp/same_value > /tmp/same_value.txt 2>&1 || true
for k in same_value_one_warp same_value_two_warps own_value_one_warp tile_reduce; do
  echo "$k: $(grep -c "Thread.* at $k" /tmp/same_value.txt) thread lines; kinds: $(grep -B1 "Thread.* at $k" /tmp/same_value.txt | grep -o 'Potential [A-Z]* hazard' | sort | uniq -c | tr '\n' ' ')"
done
tail -2 /tmp/same_value.txt
