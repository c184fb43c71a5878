#!/bin/sh
# gpu.sh — the GPU half of the benchmarks, in one call on the GPU machine:
#   bench/gpu.sh OUTDIR [PART] [SIZE]
#   PART  all (default) | vendor | simt | ocl | cuda-simt | cm | cm-ab
#         vendor: CUB/cuBLAS/cuSPARSE/NPP baselines, copy bandwidth, FMA peak
#         simt:   the SIMT baselines, through NVIDIA's OpenCL when it is there,
#                 else through their CUDA ports (bench/cuda/simt.cu)
#         ocl:    only the OpenCL SIMT baselines; cuda-simt: only the ports
#         cm-ab:  the CM kernels twice, with the default PTX layouts
#                 (gpu-cm.csv) and with -fptx-layout=canonical
#                 (gpu-cm-canonical.csv), for A/B comparisons
#   SIZE  full (default) | small
# It only builds (when no binary is there) and runs; it writes CSV files and
# gpu-info.txt into OUTDIR.  Report generation happens elsewhere: copy
# OUTDIR/*.csv into bench/runs/ and run `python3 bench/report.py bench/runs`.
# Each binary runs under `timeout` so that a call stays within 10 minutes;
# rows are flushed as they are measured, so a cut run keeps what it did.
# Example from the lead's session (binaries built there if not carried):
#   run(command="bench/gpu.sh $OUT vendor", carry=["bench/build"])
set -u
out=${1:?usage: gpu.sh OUTDIR [all|vendor|simt|ocl|cuda-simt] [full|small]}
part=${2:-all}
size=${3:-full}
mkdir -p "$out"
out=$(cd "$out" && pwd)
cd "$(dirname "$0")"
unset NVIDIA_TF32_OVERRIDE	# SGEMM must be full FP32
limit=${BENCH_TIMEOUT:-540}

info="$out/gpu-info.txt"
{
	echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "host: $(uname -n) $(uname -r)"
	nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv 2>&1
	nvcc --version 2>&1 | tail -1
} > "$info"
cat "$info"

# OpenCL: the loader and NVIDIA's ICD must both be there.
have_ocl=0
if ldconfig -p 2>/dev/null | grep -q 'libOpenCL.so.1' &&
   grep -qs nvidia /etc/OpenCL/vendors/*.icd; then
	have_ocl=1
fi
echo "NVIDIA OpenCL: $([ $have_ocl = 1 ] && echo available || echo absent)" | tee -a "$info"

# A carried cudabench may need a newer driver than this host has: probe it
# (no cases selected) and rebuild here with this host's nvcc if it fails.
cuda_bin=build/cudabench
if ! { [ -x "$cuda_bin" ] && "$cuda_bin" -w none -m vendor -s small >/dev/null 2>&1; }; then
	echo "gpu.sh: building cudabench here"
	cuda_bin=build-gpu/cudabench
	make -s -j8 BUILD=build-gpu cuda ||
		{ echo "gpu.sh: cudabench build failed" >&2; exit 1; }
fi
ocl_bin=""
if [ $have_ocl = 1 ]; then
	if [ -f /usr/include/CL/cl.h ] && make -s portable >/dev/null 2>&1; then
		ocl_bin=build/oclbench-portable
	elif [ -x build/oclbench-portable ]; then
		ocl_bin=build/oclbench-portable
	else
		echo "gpu.sh: no OpenCL headers here and no carried build/oclbench-portable; using the CUDA ports" | tee -a "$info"
		have_ocl=0
	fi
fi

run() {	# run NAME COMMAND...: CSV into $out/NAME.csv
	name=$1; shift
	echo "gpu.sh: $* -> $name.csv"
	timeout "$limit" "$@" > "$out/$name.csv"
	rc=$?
	[ $rc = 0 ] || echo "gpu.sh: $name exited with $rc" | tee -a "$info"
	grep '^# FAIL' "$out/$name.csv" || true
}

case $part in
all|vendor) run gpu-vendor "$cuda_bin" -m vendor -s "$size" ;;
esac
case $part in
all|simt)
	if [ $have_ocl = 1 ]; then
		run gpu-ocl "$ocl_bin" -s "$size" -k simt
	else
		run gpu-cuda-simt "$cuda_bin" -m simt -s "$size"
	fi ;;
ocl) run gpu-ocl "$ocl_bin" -s "$size" -k simt ;;
cuda-simt) run gpu-cuda-simt "$cuda_bin" -m simt -s "$size" ;;
esac
case $part in	# CM kernels (bench/cm), once build/cmbench exists
all|cm|cm-ab) [ -x build/cmbench ] && run gpu-cm build/cmbench -d cuda -s "$size" ;;
esac
case $part in	# the same kernels with every value in the canonical PTX layout
cm-ab) [ -x build/cmbench ] &&
	CMBENCH_OPTS="-O2 -fno-bounds-check -ffp-contract=fast -fptx-layout=canonical" \
	run gpu-cm-canonical build/cmbench -d cuda -s "$size" ;;
esac
ls -l "$out"
