#!/bin/bash
# Builds the libFuzzer targets (fuzz/) into ./build-fuzz with clang, ASan and
# UBSan, fuzzes each for a short time, then replays each target's seed
# corpus and regression inputs (no mutation).  Fails on any crash; a new
# crash input is kept under fuzz/crashes/NAME/.
#
#   tools/fuzz.sh [SECONDS]      each target for SECONDS (default 15)
#   tools/fuzz.sh --total SECONDS   all targets together for about SECONDS
#   tools/fuzz.sh --only NAME [--only NAME2] [SECONDS]   only these targets
#
# New inputs that reach new code go to build-fuzz/corpus/NAME/, so later
# runs go on from where earlier ones stopped; fuzz/corpus/NAME/ holds the
# seeds under version control.  FUZZ_BUILD names another build directory.
set -euo pipefail
cd "$(dirname "$0")/.."

each=15
total=
only=()
while (($# > 0)); do
	case $1 in
	--total) total=$2; shift 2 ;;
	--only) only+=("$2"); shift 2 ;;
	-h|--help) sed -n '2,13s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) each=$1; shift ;;
	esac
done

targets=()
if ((${#only[@]} > 0)); then
	targets=("${only[@]}")
else
	for f in fuzz/fuzz_*.c; do
		name=${f#fuzz/fuzz_}
		targets+=("${name%.c}")
	done
fi
if [[ -n $total ]]; then
	each=$((total / ${#targets[@]}))
	((each >= 5)) || each=5
fi

build=${FUZZ_BUILD:-build-fuzz}
if [[ ! -f $build/build.ninja ]]; then
	echo "== configuring $build (clang, ASan, UBSan, libFuzzer)"
	CC=clang meson setup "$build" -Dfuzz=true \
		-Db_sanitize=address,undefined -Db_lundef=false >/dev/null
fi
ninja -C "$build" -j2 "${targets[@]/#/fuzz/fuzz_}" >/dev/null

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
passed=0
failed=0

# Reports the crash inputs that appeared in fuzz/crashes/NAME/ since $2.
report_crashes() {
	local name=$1 since=$2 f
	find "fuzz/crashes/$name" -type f -newer "$since" | while read -r f; do
		echo "   new input: $f"
		echo "   reproduce: $build/fuzz/fuzz_$name $f"
		echo "   minimise:  $build/fuzz/fuzz_$name -minimize_crash=1" \
			"-max_total_time=60 $f"
	done
	echo "   once fixed, move the input to fuzz/regressions/$name/"
}

for name in "${targets[@]}"; do
	exe=$build/fuzz/fuzz_$name
	log=$build/fuzz-$name.log
	mkdir -p "$build/corpus/$name" "fuzz/crashes/$name"
	stamp=$(mktemp)
	echo "== fuzz_$name: fuzzing for ${each}s"
	if nice -n 10 "$exe" -max_total_time="$each" -timeout=5 \
		-rss_limit_mb=2048 -dict="fuzz/$name.dict" \
		-artifact_prefix="fuzz/crashes/$name/" \
		"$build/corpus/$name" "fuzz/corpus/$name" >"$log" 2>&1; then
		passed=$((passed + 1))
		grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | sed 's/^/   /' || true
	else
		failed=$((failed + 1))
		echo "FAIL: fuzz_$name crashed (log: $log)"
		grep -E 'invariant broken|ERROR:|runtime error|SUMMARY' "$log" |
			head -5 | sed 's/^/   /'
		report_crashes "$name" "$stamp"
	fi
	rm -f "$stamp"
done

for name in "${targets[@]}"; do
	exe=$build/fuzz/fuzz_$name
	log=$build/regress-$name.log
	mapfile -t inputs < <(find "fuzz/corpus/$name" "fuzz/regressions/$name" \
		-type f 2>/dev/null | sort)
	echo "== fuzz_$name: replaying ${#inputs[@]} seed and regression inputs"
	if ((${#inputs[@]} == 0)); then
		# With no file to run, libFuzzer would start fuzzing instead.
		failed=$((failed + 1))
		echo "FAIL: fuzz/corpus/$name/ is empty"
	elif "$exe" -timeout=5 -rss_limit_mb=2048 "${inputs[@]}" >"$log" 2>&1
	then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "FAIL: fuzz_$name crashed on a stored input (log: $log)"
		grep -E '^Running:|invariant broken|ERROR:|runtime error' "$log" |
			tail -4 | sed 's/^/   /'
		echo "   reproduce: $exe FILE (the last input named above)"
	fi
done

echo "fuzz: $passed passed, $failed failed"
((failed == 0))
