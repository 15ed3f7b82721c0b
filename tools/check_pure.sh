#!/usr/bin/env bash
# check_pure.sh LIBKR_RULES.a - the rules engine must stay pure (STYLE.md section 6):
# its undefined symbols may not include I/O, allocation, OpenCV, FFmpeg, GStreamer or cJSON.
# Exit 0 when clean; 1 (listing the offenders) otherwise; 2 on usage errors.
set -u
if [ $# -ne 1 ] || [ ! -f "$1" ]; then
  echo "usage: check_pure.sh path/to/libkr_rules.a" >&2
  exit 2
fi
NM=${NM:-nm}
undef=$("$NM" -u "$1") || { echo "check_pure.sh: $NM -u $1 failed" >&2; exit 2; }
# Sanitizer and coverage instrumentation (-Db_sanitize, -fsanitize=fuzzer) adds calls the
# compiler made, not the code: __asan_stack_malloc_*, __ubsan_handle_*, __sanitizer_cov_*.
undef=$(printf '%s\n' "$undef" | grep -v -E ' U __(asan|ubsan|sanitizer|msan|tsan|lsan)_' || true)
bad=$(printf '%s\n' "$undef" | grep -E 'fopen|printf|malloc|cv|av_|gst_|cJSON_' || true)
if [ -n "$bad" ]; then
  echo "check_pure.sh: $1 uses forbidden symbols:" >&2
  printf '%s\n' "$bad" >&2
  exit 1
fi
echo "check_pure.sh: $1 is pure ($(printf '%s\n' "$undef" | grep -c ' U ') undefined symbols:" \
     "$(printf '%s\n' "$undef" | awk '/ U /{print $2}' | sort -u | paste -sd' '))"
