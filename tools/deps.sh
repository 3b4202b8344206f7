#!/bin/bash
# Installs the Debian packages stichbot needs to build, test and run.
# Runs apt-get only for what is missing; uses sudo when not root.
set -euo pipefail

packages=(
	build-essential meson ninja-build pkg-config python3
	libjansson-dev libcmocka-dev libsqlite3-dev libcurl4-openssl-dev
	libircclient-dev
	ngircd openssl  # tests/irc_test.py: an IRC server, a throwaway CA
	clang libclang-rt-14-dev  # tools/fuzz.sh: clang's libFuzzer and sanitizers
	systemd
	valgrind  # tools/valgrind.sh
)
missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing+=("$p")
done
if ((${#missing[@]} == 0)); then
	exit 0
fi
as_root=()
if [[ $(id -u) -ne 0 ]]; then
	as_root=(sudo)
fi
echo "Installing: ${missing[*]}" >&2
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
