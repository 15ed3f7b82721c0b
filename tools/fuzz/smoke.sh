#!/usr/bin/env bash
# tools/fuzz/smoke.sh [SECONDS] - builds the libFuzzer target (clang, ASan+UBSan, in its
# own build dir, default build-fuzz) and runs it for SECONDS (default 60) seeded with the
# conformance logs. Exit 0 when nothing crashed or leaked; crash inputs are kept in
# BUILD/fuzz-artifacts/.
set -euo pipefail
cd "$(dirname "$0")/../.."
secs=${1:-60}
build=${KR_FUZZ_BUILD:-build-fuzz}
if [ ! -f "$build/build.ninja" ]; then
  CC=clang CXX=clang++ meson setup "$build" -Dfuzz=true -Dbuildtype=debugoptimized \
    -Db_sanitize=address,undefined -Db_lundef=false \
    -Dc_args=-fsanitize=fuzzer-no-link >&2
fi
ninja -C "$build" -j2 tools/fuzz/fuzz_match_log >&2
corpus=$(mktemp -d)
trap 'rm -rf "$corpus"' EXIT
for f in tests/rules/cases/*.jsonl tests/rules/bad/*.jsonl tests/rules/own/*.jsonl samples/demo/*.jsonl; do
  [ -f "$f" ] && cp "$f" "$corpus/$(echo "$f" | tr '/' '_')"
done
mkdir -p "$build/fuzz-artifacts"
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
"$build/tools/fuzz/fuzz_match_log" -max_total_time="$secs" -max_len=16384 -rss_limit_mb=2048 \
  -timeout=10 -print_final_stats=1 -artifact_prefix="$build/fuzz-artifacts/" "$corpus"
