# budget: 280
# gpu-exclusive: no
# ncu counters of the timing kernel suite (one launch per case). Queued as
# /work/devq/queue/timing_ncu.sh; outputs under $R.
set -u
export PYTHONPATH=$PWD
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
echo "ncu=$NCU" > "$R/status.txt"
WANT="gpu__time_duration.sum sm__cycles_elapsed.avg sm__cycles_elapsed.max smsp__cycles_active.avg smsp__inst_executed.sum smsp__thread_inst_executed.sum sm__warps_active.avg.pct_of_peak_sustained_active l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum l1tex__t_requests_pipe_lsu_mem_global_op_st.sum l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum l1tex__data_pipe_lsu_wavefronts_mem_shared.sum l1tex__t_sector_hit_rate.pct lts__t_sector_hit_rate.pct lts__t_sectors.sum dram__bytes_read.sum dram__bytes_write.sum l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_miss.sum smsp__sass_inst_executed_op_shared_ld.sum launch__registers_per_thread launch__occupancy_limit_registers launch__occupancy_limit_shared_mem sm__maximum_warps_per_active_cycle_pct"
"$NCU" --query-metrics --chip gh100 > "$R/ncu_query.txt" 2>&1 || true
OK=""
if grep -q "^gpu__time_duration" "$R/ncu_query.txt"; then
  for m in $WANT; do base=${m%%.*}; if grep -q "^$base\b" "$R/ncu_query.txt"; then OK="$OK,$m"; else echo "dropped $m" >> "$R/status.txt"; fi; done
else
  echo "metric query failed; using the list unfiltered" >> "$R/status.txt"
  for m in $WANT; do OK="$OK,$m"; done
fi
OK=${OK#,}
echo "metrics=$OK" >> "$R/status.txt"
# 1: explicit metrics (traffic, conflicts, hit rates); 2: stall reasons and occupancy sections.
timeout 130 "$NCU" --clock-control none --csv --page raw --log-file "$R/ncu_metrics.csv" --metrics "$OK" python3 tools/device/timing_suite.py --ncu-mode > "$R/ncu_app1.log" 2>&1
echo "ncu metrics rc=$?" >> "$R/status.txt"
timeout 130 "$NCU" --clock-control none --csv --page raw --log-file "$R/ncu_sections.csv" --section WarpStateStats --section Occupancy --section SpeedOfLight python3 tools/device/timing_suite.py --ncu-mode > "$R/ncu_app2.log" 2>&1
echo "ncu sections rc=$?" >> "$R/status.txt"
gzip -f "$R/ncu_query.txt" 2>/dev/null
