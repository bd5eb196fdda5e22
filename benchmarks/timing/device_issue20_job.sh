#!/bin/bash
# Issue 20's recording on the H200 (one device call): CUDA events under both conventions for every
# case of the suite (cold = L2 flushed, the default; warm = back to back), then ncu (gpu__time_duration
# and a few counters; then the WarpStateStats section) in chunks while time is left.
# Run from a folder holding benchmarks/timing/kernels/{suite.py,families.py,triton/triton.json,cubin/}
# and tools/device/timing_suite.py; results go to $OUT (at most 8 files).
set -u
export PYTHONPATH=$PWD PYTHONUNBUFFERED=1
T0=$(date +%s); BUDGET=${BUDGET:-450}
left() { echo $(( BUDGET - ($(date +%s) - T0) )); }
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu --format=csv; } > "$OUT/env.txt" 2>&1
# the kernels that could hang or fault the context (mbarrier waits, clusters, TMA) run last, apart
LISTS=$(python3 -c "
import importlib.util,sys
s=importlib.util.spec_from_file_location('timing_suite_cases','benchmarks/timing/kernels/suite.py');m=importlib.util.module_from_spec(s);sys.modules['timing_suite_cases']=m;s.loader.exec_module(m)
risky=lambda c: c.family.startswith(('pipe_bulk','cluster_ring','tt_matmul_tma'))
print(','.join(c.name for c in m.CASES if not risky(c)), ','.join(c.name for c in m.CASES if risky(c)))")
SAFE=${LISTS% *}; RISKY=${LISTS#* }
timeout $(( $(left) - 200 )) python3 tools/device/timing_suite.py --conventions --reps ${REPS:-30} --only "$SAFE" --out "$OUT/measured.json" > "$OUT/events.log" 2>&1
echo "events rc=$? left=$(left)" >> "$OUT/env.txt"
timeout 60 python3 tools/device/timing_suite.py --conventions --reps ${REPS:-30} --only "$RISKY" --out "$OUT/measured_risky.json" >> "$OUT/events.log" 2>&1
echo "events risky rc=$? left=$(left)" >> "$OUT/env.txt"
nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv >> "$OUT/env.txt" 2>&1
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
echo "ncu=$NCU" >> "$OUT/env.txt"
M="gpu__time_duration.sum,sm__cycles_elapsed.avg,smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,l1tex__t_sector_hit_rate.pct,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum"
NAMES=$(python3 -c "
import importlib.util,sys
s=importlib.util.spec_from_file_location('timing_suite_cases','benchmarks/timing/kernels/suite.py');m=importlib.util.module_from_spec(s);sys.modules['timing_suite_cases']=m;s.loader.exec_module(m)
print(' '.join(c.name for c in m.CASES if c.module!='suite' or c.kernel=='empty_kernel'))")
run_ncu() {  # $1 = tag, rest = ncu options; chunks of 40 cases, each its own CSV, while time is left
  local tag=$1; shift; local i=0 chunk=""
  for n in $NAMES; do chunk="$chunk,$n"; i=$((i+1))
    if [ $((i % 40)) -eq 0 ]; then ncu_chunk "$tag" "$chunk" "$@"; chunk=""; fi
  done
  [ -n "$chunk" ] && ncu_chunk "$tag" "$chunk" "$@"
}
ncu_chunk() {
  local tag=$1 only=${2#,}; shift 2
  [ "$(left)" -lt 25 ] && { echo "skip $tag chunk (time)" >> "$OUT/env.txt"; return; }
  local log=/tmp/ncu_${tag}_$RANDOM.csv
  timeout $(( $(left) - 10 )) "$NCU" --clock-control none --csv --page raw --log-file "$log" "$@" python3 tools/device/timing_suite.py --ncu-mode --only "$only" >> "$OUT/ncu.log" 2>&1
  echo "ncu $tag chunk rc=$? left=$(left)" >> "$OUT/env.txt"
  cat "$log" >> "$OUT/ncu_$tag.csv" 2>/dev/null
}
if [ -n "$NCU" ]; then
  run_ncu metrics --metrics "$M"
  run_ncu warps --section WarpStateStats
fi
gzip -f "$OUT"/ncu_*.csv 2>/dev/null
ls -la "$OUT" >> "$OUT/env.txt"
