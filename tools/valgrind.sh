#!/bin/bash
# Valgrind's memcheck over the bot: the cmocka tests of the core (whole
# games through the in-memory adapter, the store) run under it directly,
# and the integration tests run `stichbot run` under it through
# STICHBOT_WRAPPER (tests/run_test.py: service life cycle with the memory
# adapter; tests/crash_test.py: Matrix, SIGKILLs and a clean stop).  Any
# memory error or leak (definite, indirect or possible) fails the run.
#
# usage: tools/valgrind.sh [BUILD_DIR]   (default: build-valgrind)
set -euo pipefail
cd "$(dirname "$0")/.."

build=${1:-build-valgrind}
tools/deps.sh
if [[ ! -d $build ]]; then
	meson setup "$build" -Dwerror=true >/dev/null
fi
ninja -C "$build" stichbot tests/test_bot tests/test_store >/dev/null

logs=$(mktemp -d "${TMPDIR:-/tmp}/stichbot-valgrind.XXXXXX")
trap 'rm -rf "$logs"' EXIT
vg=(valgrind --quiet --leak-check=full
	--show-leak-kinds=definite,indirect,possible
	--errors-for-leak-kinds=definite,indirect,possible
	--error-exitcode=99 --log-file="$logs/vg.%p.log")
status=0

run() {
	local name=$1
	shift
	echo "== valgrind: $name"
	if ! "$@"; then
		echo "FAIL: $name" >&2
		status=1
	fi
}

run "test_bot" "${vg[@]}" "$build/tests/test_bot"
run "test_store" "${vg[@]}" "$build/tests/test_store"
export STICHBOT_WRAPPER="${vg[*]}"
run "run_test.py" python3 tests/run_test.py "$build/stichbot"
# Processes killed with SIGKILL write no summary; the last run stops
# cleanly and must report nothing.
run "crash_test.py" python3 tests/crash_test.py "$build/stichbot" --kills 8

# A process killed by SIGKILL leaves no summary; every other log must be
# clean (error exit codes already failed its test; this names the cause).
if grep -l "ERROR SUMMARY: [1-9]" "$logs"/vg.*.log >/dev/null 2>&1; then
	for f in $(grep -l "ERROR SUMMARY: [1-9]" "$logs"/vg.*.log); do
		echo "--- $f" >&2
		cat "$f" >&2
	done
	status=1
fi
echo "valgrind: $(ls "$logs" | wc -l) processes checked, $( ((status == 0)) &&
	echo "no errors or leaks" || echo "FAILED")"
exit $status
