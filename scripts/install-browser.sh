#!/usr/bin/env bash
# Installs what the real-browser test of `carcassonne serve` needs: Debian's chromium and
# chromium-driver (/usr/bin/chromium, /usr/bin/chromedriver). Does nothing when both are
# there; otherwise installs them with apt-get (scripts/apt-install.sh). Called by
# scripts/test.sh before the cargo steps.
set -euo pipefail
cd "$(dirname "$0")"

if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; then
    exit 0
fi

# No recommends (desktop services a headless test does not need) but a font for the page's text.
bash apt-install.sh install-browser.sh chromium chromium-driver fonts-liberation

for tool in /usr/bin/chromium /usr/bin/chromedriver; do
    if [ ! -x "$tool" ]; then
        echo "install-browser.sh: $tool is still missing after the install" >&2
        exit 1
    fi
done
echo "install-browser.sh: $(/usr/bin/chromium --version 2>/dev/null || echo chromium), $(/usr/bin/chromedriver --version 2>/dev/null | head -1)" >&2
