#!/bin/bash
# The first Quick start command: installs what is missing, builds, and runs
# the bot's main job on its embedded default: a table in the terminal, you
# against three computer players.  Arguments go to `stichbot play`, e.g.
#   bash tools/quickstart.sh sticheln --players 3 --lang ja
set -euo pipefail
cd "$(dirname "$0")/.."
tools/build.sh
exec ./build/stichbot play "$@"
