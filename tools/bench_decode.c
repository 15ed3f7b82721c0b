/* bench_decode.c - decode-only loop through kr_media_reader, for comparing with
 * `ffmpeg -i F -f null -` (tools/bench_decode.sh runs both side by side).
 * SPDX-License-Identifier: MIT */
#include "kr_media.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int usage(void)
{
    fprintf(stderr, "usage: bench_decode VIDEO [--gray] [--yuv] [--width W] [--fast] [--threads N]\n");
    return 2;
}

int main(int argc, char **argv)
{
    kr_log_set_program("bench_decode");
    if (argc < 2 || argv[1][0] == '-')
        return usage();
    kr_media_reader_config cfg;
    kr_media_reader_config_default(&cfg);
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--gray"))
            cfg.gray = 1;
        else if (!strcmp(argv[i], "--yuv"))
            cfg.yuv = 1; /* planes only (scaled in YUV with --width), no BGR */
        else if (!strcmp(argv[i], "--fast"))
            cfg.fast = 1;
        else if (!strcmp(argv[i], "--width") && i + 1 < argc)
            cfg.out_w = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
            cfg.threads = atoi(argv[++i]);
        else
            return usage();
    }
    int64_t t0 = kr_clock_us();
    kr_media_reader_t *r = NULL;
    if (kr_media_reader_open2(argv[1], &cfg, &r) != KR_OK) {
        kr_log(KR_LOG_ERROR, "%s", kr_media_reader_error(NULL));
        return 1;
    }
    kr_frame_t f;
    kr_status st;
    int64_t n = 0, gaps = 0;
    unsigned long sum = 0;
    while ((st = kr_media_reader_next(r, &f)) == KR_OK) {
        /* touch the pixels */
        sum += f.yuv.y ? f.yuv.y[(f.yuv.h / 2) * f.yuv.stride_y] : f.img.px[(f.img.h / 2) * f.img.stride];
        gaps += f.gap_us > 0;
        n++;
    }
    double s = (double)(kr_clock_us() - t0) / 1e6;
    int rc = 0;
    if (st != KR_ERR_EOF) {
        kr_log(KR_LOG_ERROR, "%s", kr_media_reader_error(r));
        rc = 1;
    }
    kr_media_info_t info;
    kr_media_reader_info(r, &info);
    printf("frames %lld  %dx%dx%d  %.3f s  %.1f fps  gaps %lld  (checksum %lu)\n", (long long)n, info.out_w,
           info.out_h, info.out_channels, s, (double)n / s, (long long)gaps, sum);
    kr_media_reader_destroy(r);
    return rc;
}
