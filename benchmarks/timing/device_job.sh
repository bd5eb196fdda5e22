# budget: 200
# gpu-exclusive: yes
# Timing calibration on the GPU (ptxvm.timing, issue 10): microbenchmarks, then the kernel suite
# timed with CUDA events. Queued as /work/devq/queue/timing_calib.sh (batch 1) and timing_calib2.sh (batch 2); outputs under $R.
set -u
export PYTHONPATH=$PWD
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu --format=csv; } > "$R/nvidia_smi.txt" 2>&1
python3 -c "import cupy; print(cupy.__version__)" > "$R/env.txt" 2>&1
timeout 120 python3 tools/device/timing_micro.py --out "$R/micro.json" > "$R/micro.log" 2>&1; echo "micro rc=$?" >> "$R/status.txt"
timeout 120 python3 tools/device/timing_suite.py --out "$R/suite.json" --reps 25 > "$R/suite.log" 2>&1; echo "suite rc=$?" >> "$R/status.txt"
nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv >> "$R/nvidia_smi.txt" 2>&1
nvidia-smi -q -d CLOCK,PERFORMANCE >> "$R/nvidia_smi.txt" 2>&1
ls -la "$R" >> "$R/status.txt"
