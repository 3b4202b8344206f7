#!/bin/bash
# The first Quick start command: installs what building and playing need,
# builds, and runs the bot's main job on its embedded default: a table in
# the terminal, you against three computer players.  Each step says what
# it does.  Arguments go to `stichbot play`, e.g.
#   bash tools/quickstart.sh sticheln --players 3 --lang ja
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
tools/build.sh play
echo "==> Starting stichbot play $* (ready after $((SECONDS - start)) s;" \
	"!help lists the commands, !rules the rules, quit leaves)"
exec ./build/stichbot play "$@"
