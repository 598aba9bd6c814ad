#!/usr/bin/env bash
# CI: headless Chromium and its driver for tests/serve/test_browser.py, from Debian's packages
# (/usr/bin/chromium, /usr/bin/chromedriver). Nothing downloads a browser build; Selenium itself
# comes with the project's `test` extra.
set -euo pipefail
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
$SUDO apt-get update -qq
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver
/usr/bin/chromium --headless=new --no-sandbox --version
/usr/bin/chromedriver --version
