#!/bin/bash
# Installs a build into a scratch DESTDIR and checks what `meson install`
# puts there: the executable, the systemd units (whose ExecStart= must name
# the installed executable), the example configuration (which the installed
# executable must parse) and the manual.  Then, when systemd-analyze is
# available, the units must pass `systemd-analyze verify` and score "OK" or
# better in `systemd-analyze security --offline=true`; without it those two
# checks are skipped with a message.
#
# usage: tools/check_systemd.sh [BUILD_DIR]    (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}

fail() {
	echo "check_systemd: $*" >&2
	exit 1
}

dest=$(mktemp -d /tmp/stichbot-install.XXXXXX)
trap 'rm -rf "$dest"' EXIT
meson install -C "$build" --destdir "$dest" --no-rebuild --quiet >/dev/null

# One installed file by name (and a path fragment), or a failure.
installed() {
	local found
	found=$(find "$dest" -path "*$2*" -name "$1" -type f | head -n 1)
	[[ -n $found ]] || fail "meson install did not install $2/$1"
	echo "$found"
}
bin=$(installed stichbot /bin/)
installed stichbot.1 /man1/ >/dev/null
example=$(installed stichbot.example.json /doc/stichbot/)
units=()
for name in stichbot.service stichbot@.service; do
	units+=("$(installed "$name" /systemd/system/)")
done
"$bin" --version >/dev/null || fail "the installed executable does not run"

# The example must get past the common checks; only an adapter that is not
# built yet may stop it (check-config proper is tests/config_example_test.py).
if ! out=$("$bin" check-config "$example" 2>&1); then
	case $out in
	*"unknown adapter"* | *CREDENTIALS_DIRECTORY* | *"cannot read"*) ;;
	*) fail "the installed example is refused: $out" ;;
	esac
fi

# ExecStart= must name the installed executable.
for unit in "${units[@]}"; do
	exe=$(sed -n 's/^ExecStart=\([^ ]*\).*/\1/p' "$unit")
	[[ -x $dest$exe ]] ||
		fail "$(basename "$unit"): ExecStart= names $exe, not installed"
done
echo "check_systemd: install into DESTDIR ok"

if ! command -v systemd-analyze >/dev/null; then
	echo "check_systemd: systemd-analyze not found; skipping the unit" \
		"checks (apt-get install systemd)"
	exit 0
fi

# verify wants the executables to exist and the manual to be found: point
# the copies at the DESTDIR's executable and man at its manual.
work=$dest/verify
mkdir -p "$work"
for unit in "${units[@]}"; do
	sed "s|^ExecStart=/|ExecStart=$dest/|" "$unit" >"$work/$(basename "$unit")"
done
man_flag=--man=yes
command -v man >/dev/null || man_flag=--man=no
man_dir=$(dirname "$(dirname "$(installed stichbot.1 /man1/)")")
MANPATH=$man_dir systemd-analyze verify "$man_flag" "$work"/*.service ||
	fail "systemd-analyze verify failed"
echo "check_systemd: systemd-analyze verify ok"

if ! systemd-analyze security --help 2>/dev/null | grep -q -- --offline; then
	echo "check_systemd: this systemd-analyze has no --offline; skipping" \
		"the security check"
	exit 0
fi
for unit in "$work"/*.service; do
	line=$(cd "$work" && systemd-analyze security --offline=true \
		"$(basename "$unit")" 2>&1 | grep "Overall exposure level") ||
		fail "systemd-analyze security failed on $(basename "$unit")"
	echo "check_systemd: ${line#→ }"
	case $line in
	*" PERFECT"* | *" SAFE"* | *" OK"*) ;;
	*) fail "$(basename "$unit") must score OK or better" ;;
	esac
done
