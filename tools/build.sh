#!/bin/bash
# Installs what is missing and builds stichbot into ./build, saying what
# it does at each step (ninja shows its progress as [done/total]).
#   tools/build.sh play   only what building and playing need
#   tools/build.sh        everything the tests need as well
set -euo pipefail
cd "$(dirname "$0")/.."
echo "==> Checking the Debian packages (tools/deps.sh ${1:-all})"
tools/deps.sh "${1:-all}"
if [[ ! -f build/build.ninja ]]; then
	echo "==> Configuring (meson setup build)"
	meson setup build >build-setup.log 2>&1 || {
		cat build-setup.log >&2
		exit 1
	}
	rm -f build-setup.log
fi
# Playing needs only the executable; the tests need every target.
targets=()
if [[ ${1:-all} == play ]]; then
	targets=(stichbot)
fi
echo "==> Building (ninja -C build ${targets[*]:-})"
ninja -C build "${targets[@]}"
