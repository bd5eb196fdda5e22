#!/bin/sh
# One device call: the walk timings, then ncu's L1/L2 counters of the same launches (cold, one each).
# Run from a folder holding walk.cubin, timing_walk.py and results_file.py; outputs under $OUT.
set -u
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv > "$OUT/walk_h200_env.txt" 2>&1
timeout 70 python3 timing_walk.py --cubin walk.cubin --out "$OUT/walk_h200.json" --reps 5 > "$OUT/walk_h200_log.txt" 2>&1
echo "timing rc=$?" >> "$OUT/walk_h200_log.txt"
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
echo "ncu=$NCU" >> "$OUT/walk_h200_env.txt"
WANT="gpu__time_duration.sum sm__cycles_elapsed.max l1tex__t_sector_hit_rate.pct l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_miss.sum l1tex__t_requests_pipe_lsu_mem_global_op_st.sum l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum lts__t_sectors_srcunit_tex_op_read.sum lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum lts__t_sectors_srcunit_tex_op_write.sum dram__bytes_read.sum dram__bytes_write.sum l1tex__data_pipe_lsu_wavefronts_mem_lg.sum"
"$NCU" --query-metrics --chip gh100 > /tmp/ncu_query.txt 2>&1 || true
OK=""
for m in $WANT; do base=${m%%.*}; if grep -q "^$base\b" /tmp/ncu_query.txt; then OK="$OK,$m"; else echo "dropped $m" >> "$OUT/walk_h200_env.txt"; fi; done
OK=${OK#,}
[ -z "$OK" ] && OK=$(echo $WANT | tr ' ' ',')
timeout 140 "$NCU" --clock-control none --replay-mode application -k regex:walk_ --csv --page raw \
  --log-file "$OUT/walk_ncu_h200.csv" --metrics "$OK" python3 timing_walk.py --cubin walk.cubin --ncu-mode \
  > "$OUT/walk_ncu_h200_log.txt" 2>&1
echo "ncu rc=$?" >> "$OUT/walk_ncu_h200_log.txt"
