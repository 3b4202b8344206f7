#!/bin/bash
# Installs what is missing, builds, and runs every test (meson test).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/build.sh
meson test -C build --print-errorlogs "$@"
