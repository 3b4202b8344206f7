#!/bin/bash
# Valgrind's memcheck over the bot: the cmocka tests of the core (whole
# games through the in-memory adapter, the store) and a short `stichbot
# play` run under it directly, and the integration tests run `stichbot
# run` under it through STICHBOT_WRAPPER (tests/run_test.py: the service
# life cycle with the memory adapter; tests/crash_test.py: Matrix, kills
# and a clean stop).  Any memory error or leak (definite, indirect or
# possible) fails the run; about 1.5 minutes.
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

# The terminal table (adapters/console.c) until its input ends.
play() {
	printf '!status\nhand\n!leave\n' | "${vg[@]}" "$build/stichbot" play \
		wizard --option rounds=2 --delay 1 --seed 1 --level easy \
		--store :memory: >/dev/null
}

run "test_bot" "${vg[@]}" "$build/tests/test_bot"
run "test_store" "${vg[@]}" "$build/tests/test_store"
run "stichbot play" play
export STICHBOT_WRAPPER="${vg[*]}"
run "run_test.py" python3 tests/run_test.py "$build/stichbot"
# Killed processes cannot report leaks; the last run stops cleanly.
run "crash_test.py" python3 tests/crash_test.py "$build/stichbot" --kills 8

# With --quiet valgrind writes only errors and leaks, so every log must be
# empty: this also catches errors of processes killed with SIGKILL, which
# have no exit status to tell (the others already failed their test).
for f in "$logs"/vg.*.log; do
	if [[ -s $f ]]; then
		echo "--- $f" >&2
		cat "$f" >&2
		status=1
	fi
done
echo "valgrind: $(ls "$logs" | wc -l) processes checked, $( ((status == 0)) &&
	echo "no errors or leaks" || echo "FAILED")"
exit $status
