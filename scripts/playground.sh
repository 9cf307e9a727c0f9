#!/usr/bin/env bash
# Opens the playground on http://localhost:5173 from a fresh clone (installs, builds, serves).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
npm start
