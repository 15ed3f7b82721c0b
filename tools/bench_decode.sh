#!/usr/bin/env bash
# tools/bench_decode.sh VIDEO [BUILD_DIR]
#   Times `ffmpeg -i VIDEO -f null -` against the decode-only loop through
#   kr_media_reader (bench_decode: BGR, BGR at 640 px wide (also without deblocking:
#   --fast), GRAY8, GRAY8 at 640 px)
#   and prints wall and CPU (user+sys) seconds, best of 3 runs each, with the ratio
#   to ffmpeg's.
#   CPU time is the steadier figure when other jobs share the machine.
set -euo pipefail
video=${1:?usage: tools/bench_decode.sh VIDEO [BUILD_DIR]}
build=${2:-build}
bench="$build/tools/bench_decode"
[ -x "$bench" ] || { echo "bench_decode.sh: $bench not built (ninja -C $build tools/bench_decode)" >&2; exit 1; }
[ -r "$video" ] || { echo "bench_decode.sh: cannot read $video" >&2; exit 1; }
tf=$(mktemp); trap 'rm -f "$tf"' EXIT

best() { # prints "best_wall best_cpu" over 3 runs of "$@"
  local bw=1e9 bc=1e9
  for _ in 1 2 3; do
    /usr/bin/time -o "$tf" -f "%e %U %S" "$@" >/dev/null 2>&1 || { echo "bench_decode.sh: failed: $*" >&2; exit 1; }
    read -r w u s < "$tf"
    bw=$(awk -v a="$w" -v b="$bw" 'BEGIN{print (a<b)?a:b}')
    bc=$(awk -v a="$u" -v s="$s" -v b="$bc" 'BEGIN{c=a+s; print (c<b)?c:b}')
  done
  echo "$bw $bc"
}

read -r fw fc < <(best ffmpeg -nostdin -v error -i "$video" -f null -)
printf "%-32s wall %7.2f s (x%.2f)   cpu %7.2f s (x%.2f)\n" "ffmpeg -i F -f null -" "$fw" 1 "$fc" 1
for opts in "" "--width 640" "--width 640 --fast" "--gray" "--gray --width 640"; do
  # shellcheck disable=SC2086
  read -r w c < <(best "$bench" "$video" $opts)
  printf "%-32s wall %7.2f s (x%.2f)   cpu %7.2f s (x%.2f)\n" "bench_decode ${opts:-(BGR)}" "$w" \
    "$(awk -v a="$w" -v b="$fw" 'BEGIN{print a/b}')" "$c" "$(awk -v a="$c" -v b="$fc" 'BEGIN{print a/b}')"
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
