#!/usr/bin/env bash
# Screenshots of the built docs site in a real browser (headless Chromium), for review:
# the home page and one reference page, into docs/img/screenshots/.
#
#   bash scripts/screenshot_docs.sh            # builds the site first (mkdocs build --strict)
#   SKIP_BUILD=1 bash scripts/screenshot_docs.sh
#
# Needs chromium (Debian: apt-get install -y chromium chromium-driver). The site is served from
# site/ by python -m http.server on a free local port, stopped when the script ends.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
out="docs/img/screenshots"
mkdir -p "$out"
if [ -z "${SKIP_BUILD:-}" ]; then
    NO_MKDOCS_2_WARNING=1 mkdocs build --strict --quiet
fi

port="$(python -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
python -m http.server "$port" --bind 127.0.0.1 --directory site >/dev/null 2>&1 &
server=$!
profile="$(mktemp -d)"
trap 'kill "$server" 2>/dev/null || true; rm -rf "$profile"' EXIT
for _ in $(seq 50); do  # wait until the server answers
    if python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/')" \
        2>/dev/null; then break; fi
    sleep 0.1
done

shoot() {  # shoot PAGE_PATH FILE.png [HEIGHT]
    chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --user-data-dir="$profile" --hide-scrollbars --virtual-time-budget=3000 \
        --window-size="1280,${3:-900}" --screenshot="$out/$2" \
        "http://127.0.0.1:$port/$1" 2>/dev/null
    echo "$out/$2"
}

shoot "" home.png
shoot "reference/cli/" reference-cli.png 1400
shoot "reference/json/run-result/" reference-run-result.png 1400
