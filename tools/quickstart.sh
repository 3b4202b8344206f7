#!/bin/bash
# The first Quick start command: installs what is missing, builds, and runs
# the bot's main job on its embedded default.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/build.sh
exec ./build/stichbot replay tests/golden/wizard-notequal-4rounds.record.json
