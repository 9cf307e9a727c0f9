#!/usr/bin/env bash
# The whole test suite from a fresh clone: installs what is missing (Debian's Chromium, npm
# packages, the offline models via `npm run setup`), then type-checks, unit-tests, builds and runs e2e.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
npm test
