#!/usr/bin/env bash
# The browser test (tests/tui/test_serve.py) drives the distribution's Chromium through
# Playwright: install it with the package manager when it is missing (CI's clean machine).
set -euo pipefail
command -v chromium >/dev/null && exit 0
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >/dev/null
