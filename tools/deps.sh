#!/bin/bash
# Installs the Debian packages stichbot needs; runs apt-get only for what
# is missing, and uses sudo when not root.
#
#   tools/deps.sh play   what building and playing need (the quick start)
#   tools/deps.sh        everything: also what the tests, the fuzzers and
#                        the memory checks use (tools/test.sh)
set -euo pipefail

# Building `stichbot` and playing `stichbot play`.  cmocka is here because
# meson configures the unit tests with the build.
play=(
	build-essential meson ninja-build pkg-config python3
	libjansson-dev libcmocka-dev libsqlite3-dev libcurl4-openssl-dev
	libircclient-dev
	libedit-dev  # line editing and history at the terminal table
)
# The rest of the tests and checks.
tests=(
	tmux  # tests/tmux_play_test.py: a terminal to play in
	ngircd openssl  # tests/irc_test.py: an IRC server, a throwaway CA
	irssi weechat-curses  # tests/client_prefix_test.py: real IRC clients
	clang libclang-rt-14-dev  # tools/fuzz.sh: clang's libFuzzer and sanitizers
	systemd  # tools/check_systemd.sh: systemd-analyze
	valgrind  # tools/valgrind.sh
)
case ${1:-all} in
play) packages=("${play[@]}") ;;
all) packages=("${play[@]}" "${tests[@]}") ;;
*) echo "usage: tools/deps.sh [play|all]" >&2; exit 2 ;;
esac
missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing+=("$p")
done
if ((${#missing[@]} == 0)); then
	echo "Packages: all ${#packages[@]} installed."
	exit 0
fi
as_root=()
if [[ $(id -u) -ne 0 ]]; then
	as_root=(sudo)
fi
echo "Packages: installing ${#missing[@]}: ${missing[*]}"
echo "  (apt-get update)"
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
echo "  (apt-get install; this downloads and may take a few minutes)"
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
	apt-get install -y -q --no-install-recommends "${missing[@]}" |
	grep --line-buffered -E '^(Get|Setting up)' | sed -u 's/^/  /' || true
for p in "${missing[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		{ echo "Packages: $p could not be installed" >&2; exit 1; }
done
