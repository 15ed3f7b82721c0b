#!/bin/sh
# live_page.sh - browser test of the live judge's page: live_page_host serves it and
# pushes state, rulings and a snapshot; headless Chromium (driven by cdp.js) opens it
# (#selftest types a reading into the form) and the page must show them. Usage: live_page.sh HOST_BIN SHOT_DIR
# SPDX-License-Identifier: MIT
set -eu
here=$(cd "$(dirname "$0")" && pwd)
host=$1
shots=${2:-.}
if ! command -v chromium >/dev/null 2>&1; then
  echo "SKIP: chromium is not installed (apt-get install chromium; tools/debian-packages.txt lists it)"
  exit 77
fi
command -v ffmpeg >/dev/null 2>&1 || { echo "SKIP: ffmpeg is not installed"; exit 77; }
command -v node >/dev/null 2>&1 || { echo "SKIP: node is not installed (apt-get install nodejs)"; exit 77; }
tmp=$(mktemp -d)
hostpid=
cleanup() { if [ -n "$hostpid" ]; then kill "$hostpid" 2>/dev/null || true; fi; rm -rf "$tmp"; }
trap cleanup EXIT
ffmpeg -loglevel error -f lavfi -i testsrc2=size=640x360:rate=1 -frames:v 1 "$tmp/snap.jpg"
"$host" "$tmp/snap.jpg" 20 > "$tmp/host.out" &
hostpid=$!
for i in $(seq 50); do [ -s "$tmp/host.out" ] && break; sleep 0.1; done
port=$(head -1 "$tmp/host.out")
[ -n "$port" ] || { echo "FAIL: host did not start"; exit 1; }
# real time (the page keeps an EventSource open): a small DevTools-protocol driver
node "$here/cdp.js" "http://127.0.0.1:$port/#selftest" \
  "(document.getElementById('kr-selftest')||{}).textContent" 10000 "$shots/live_page.png" \
  > "$tmp/selftest.json" 2>"$tmp/cdp.err" || { cat "$tmp/cdp.err"; echo "FAIL: page self-test"; exit 1; }
sleep 0.3
python3 - "$tmp/selftest.json" "$tmp/host.out" <<'PY'
import json, sys
r = json.loads(json.load(open(sys.argv[1], encoding='utf-8')))
host = open(sys.argv[2], encoding='utf-8').read()
print('selftest:', json.dumps(r, ensure_ascii=False))
fails = []
def check(c, what):
    if not c: fails.append(what)
check(r['conn'] == 'connected', 'not connected: %s' % r['conn'])
check(r['names'] == ['Sato (A)', '<i>Ito</i> (B)'], 'player names %s (escaping?)' % r['names'])
check(sorted(r['history']) == [1, 2], 'rulings shown %s' % r['history'])
check(r['latest'] == 2, 'latest ruling %s' % r['latest'])
check(r['counts'] == ['24', '23'], 'counts %s' % r['counts'])
check(r['review'] == 1 and r['reasons'] == ['near-simultaneous <touches>'], 'review reasons %s' % r['reasons'])
check(r['provisional'] == 1, 'provisional rulings %s' % r['provisional'])
check(r['snapW'] == 640, 'live view not loaded (width %s)' % r['snapW'])
check(len(r['latency']) == 1 and r['latency'][0] >= 0, 'settle latency not measured: %s' % r['latency'])
check('POST {"type":"kami_start","seq":9,"card":42}' in host, 'typed reading did not reach the server')
check(r['formmsg'].startswith('sent:'), 'form said %s' % r['formmsg'])
if fails:
    for f in fails: print('FAIL:', f)
    sys.exit(1)
print('ok: live page shows state, rulings, review reasons, snapshot; typed reading delivered')
PY
test -s "$shots/live_page.png" && echo "screenshot: $shots/live_page.png"
