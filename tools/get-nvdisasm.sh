#!/bin/sh
# get-nvdisasm.sh — prints the path of an nvdisasm, installing one first
# when there is none: the SASS checks (tests/sass, tools/sass_bench.sh)
# need it, and CUDA toolkits without it are common (ptxas is enough to
# build cubins).  Looks, in order, at
#   $NVDISASM;
#   nvdisasm on PATH (it comes with a full CUDA toolkit);
#   the cache, $CMETAL_TOOLS_DIR (default ${XDG_CACHE_HOME:-~/.cache}/cmetal-tools),
#     where it installs PyPI's nvidia-cuda-nvdisasm ($NVDISASM_PIP, pinned
#     below) with `pip install --target` when it is not there yet.
# The first run downloads ~40 MB; later runs cost a stat.  Exits 1, saying
# why on stderr, when nothing can be found or installed (no pip, no network).
set -eu
spec=${NVDISASM_PIP:-nvidia-cuda-nvdisasm==13.5.37}
works() { [ -x "$1" ] && "$1" --version >/dev/null 2>&1; }

if [ -n "${NVDISASM:-}" ]; then
	works "$NVDISASM" || { echo "get-nvdisasm.sh: NVDISASM=$NVDISASM does not run" >&2; exit 1; }
	echo "$NVDISASM"
	exit 0
fi
if p=$(command -v nvdisasm 2>/dev/null) && works "$p"; then
	echo "$p"
	exit 0
fi
cache=${CMETAL_TOOLS_DIR:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/cmetal-tools}
dir=$cache/$(echo "$spec" | tr -c 'A-Za-z0-9.\n' _)
find_bin() { find "$1" -path '*/bin/nvdisasm' -type f 2>/dev/null | head -n 1; }
p=$(find_bin "$dir")
if [ -n "$p" ] && works "$p"; then
	echo "$p"
	exit 0
fi

# install into a fresh directory, then move it in place: two runs at once
# (two worktrees, two test suites) must not see a half-installed tree
mkdir -p "$cache"
new=$(mktemp -d "$cache/.new-XXXXXX")
trap 'rm -rf "$new"' EXIT
if ! python3 -m pip --version >/dev/null 2>&1; then
	echo "get-nvdisasm.sh: no nvdisasm, and no pip to install $spec (python3 -m pip)" >&2
	exit 1
fi
if ! python3 -m pip install --quiet --disable-pip-version-check --no-deps \
	--timeout 20 --retries 1 --target "$new" "$spec" >"$new.log" 2>&1; then
	echo "get-nvdisasm.sh: pip could not install $spec (no network?): $(grep -m 1 -E 'ERROR|rror:' "$new.log" || tail -n 1 "$new.log")" >&2
	rm -f "$new.log"
	exit 1
fi
rm -f "$new.log"
p=$(find_bin "$new")
if [ -z "$p" ] || ! works "$p"; then
	echo "get-nvdisasm.sh: $spec installed no working bin/nvdisasm" >&2
	exit 1
fi
p=$(find_bin "$dir")
if [ -z "$p" ] || ! works "$p"; then	# else another run has installed it meanwhile
	rm -rf "$dir"
	mv "$new" "$dir"
fi
p=$(find_bin "$dir")
works "$p" || { echo "get-nvdisasm.sh: $dir has no working nvdisasm" >&2; exit 1; }
echo "$p"
