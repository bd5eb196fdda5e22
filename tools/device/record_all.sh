#!/usr/bin/env bash
# Record every conformance family and every kernel case on the GPU machine, and bundle the
# goldens into $OUT (at most 8 files of 15 MiB: goldens.tar.part-aa, -ab, ...).
#
#   bash tools/device/record_all.sh            # on the device machine, repo root as cwd
#   python3 tools/device/unpack.py DIR          # here: DIR holds the parts; fills tests/goldens/
#
# Families record in parallel (one process each, each with its own CUDA context).
set -u
cd "$(dirname "$0")/../.." || exit 1
OUTDIR=${OUT:-/tmp/record_out}
mkdir -p "$OUTDIR"
WORK=$(mktemp -d)
GOLD=$WORK/goldens
mkdir -p "$GOLD/conformance" "$GOLD/kernels" "$WORK/logs"
export PYTHONUNBUFFERED=1
start=$(date +%s)
python3 tools/device/record.py --info-only > "$WORK/logs/device.json" 2>&1
cat "$WORK/logs/device.json"
fams=$(python3 -c 'import sys, types, os; p = types.ModuleType("ptxvm"); p.__path__ = [os.path.abspath("ptxvm")]; sys.modules["ptxvm"] = p; from ptxvm.conformance.cases import FAMILIES; print(" ".join(FAMILIES))')
pids=""
for f in $fams; do
  python3 tools/device/record.py --family "$f" --out "$GOLD/conformance" > "$WORK/logs/$f.log" 2>&1 &
  pids="$pids $!"
done
if [ -f tests/kernels/cases.py ]; then
  python3 tools/device/record_kernels.py --out "$GOLD/kernels" > "$WORK/logs/kernels.log" 2>&1 &
  pids="$pids $!"
fi
rc=0
for p in $pids; do wait "$p" || rc=1; done
end=$(date +%s)
echo "recorded in $((end - start)) s (rc=$rc)"
for f in "$WORK"/logs/*.log; do echo "== $(basename "$f")"; grep -v '^ ' "$f" | grep -v '^[{}]$' | tail -3; done
cp -r "$WORK/logs" "$GOLD/conformance/record_logs" 2>/dev/null
rm -rf "$GOLD/conformance/record_logs"   # logs travel separately, not into the goldens
tar -C "$WORK" -cf - goldens logs | gzip -1 | split -b 15m - "$OUTDIR/goldens.tar.gz.part-"
ls -la "$OUTDIR"
du -sh "$GOLD"/*
exit $rc
