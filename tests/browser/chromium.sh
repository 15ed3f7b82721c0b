#!/bin/sh
# chromium.sh - headless Chromium with the flags the browser tests need (no network
# services, no sandbox for CI containers, autoplay allowed). Usage: chromium.sh ARGS... URL
# SPDX-License-Identifier: MIT
prof=$(mktemp -d)
trap 'rm -rf "$prof"' EXIT
timeout 60 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --disable-dev-shm-usage --hide-scrollbars --mute-audio \
  --autoplay-policy=no-user-gesture-required --user-data-dir="$prof" "$@" 2>"$prof/stderr"
rc=$?
[ $rc -ne 0 ] && tail -5 "$prof/stderr" >&2
exit $rc
