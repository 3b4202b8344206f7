#!/bin/bash
# Installs what is missing and builds stichbot into ./build.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/deps.sh
if [[ ! -f build/build.ninja ]]; then
	meson setup build >/dev/null
fi
ninja -C build >/dev/null
