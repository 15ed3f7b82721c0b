/* kr_gaps.c - dropped-frame detection from presentation times (kr_media_gaps_*),
 * shared by the file reader and the live capture.
 * SPDX-License-Identifier: MIT */
#include "kr_media.h"

#include <string.h>

void kr_media_gaps_reset(kr_media_gaps_t *g, int64_t nominal_period_us)
{
    memset(g, 0, sizeof *g);
    g->nominal_us = nominal_period_us > 0 ? nominal_period_us : 33333;
}

/* The period gaps are measured against: the median of the last (up to) 9
 * intervals, or twice the nominal period before any is known (a variable-rate
 * file's average rate says little about its first frames). The median follows
 * variable-rate footage (phones, slow-motion ramps) yet ignores isolated holes.
 * A rate drop by 1.5x or more is indistinguishable from dropped frames at its first
 * frame and is reported there as a gap; the long intervals that follow it, each within
 * 10 % of the one before, are the new rate (a slow-motion ramp's end, a camera halving
 * its rate in low light) and are not, while the median adapts (about 5 frames). Nor is
 * a long interval at most half again the one before when the two before it were already
 * over a local period and growing, the last by 5 % to over 1.1 periods: the rate easing
 * down over several frames (a ramp's end smoothed: 240 to 60 fps over 0.1 s gave five
 * gaps in a row), where a frame lost doubles the interval at once. On the variable-rate
 * renders (tools/eval_events.sh --jitter 0.2 --drop 0.03) 13 of 2745 gaps were taken for
 * easing (tools/frame_gaps). */
int64_t kr_media_gaps_period(const kr_media_gaps_t *g)
{
    if (g->n == 0)
        return 2 * g->nominal_us;
    int64_t v[KR_MEDIA_GAP_RING] = {0};
    for (int i = 0; i < g->n; i++) { /* insertion sort, at most KR_MEDIA_GAP_RING values */
        int64_t x = g->ring[i];
        int j = i;
        for (; j > 0 && v[j - 1] > x; j--)
            v[j] = v[j - 1];
        v[j] = x;
    }
    return v[g->n / 2];
}

int64_t kr_media_gaps_feed(kr_media_gaps_t *g, int64_t t_us)
{
    int64_t gap = 0;
    if (g->have_prev) {
        int64_t dt = t_us - g->prev_t_us;
        int64_t period = kr_media_gaps_period(g);
        int long_dt = dt * 2 > period * 3;
        int same_as_last = g->long_us > 0 && dt * 10 <= g->long_us * 11 && dt * 10 >= g->long_us * 9;
        /* the rate easing down (a slow-motion ramp's end, smoothed): the two intervals before
         * were already over a local period and growing, the last over 1.1 of it, and this one
         * is at most half again as long */
        const int64_t last = g->n >= 1 ? g->ring[(g->pos + KR_MEDIA_GAP_RING - 1) % KR_MEDIA_GAP_RING] : 0;
        const int64_t last2 = g->n >= 2 ? g->ring[(g->pos + KR_MEDIA_GAP_RING - 2) % KR_MEDIA_GAP_RING] : 0;
        int easing = last * 10 > period * 11 && dt * 2 <= last * 3 && last * 100 > last2 * 105 && last2 > period;
        if (long_dt && !same_as_last && !easing)
            gap = dt - (g->n ? period : g->nominal_us);
        g->long_us = long_dt ? dt : 0;
        g->ring[g->pos] = dt;
        g->pos = (g->pos + 1) % KR_MEDIA_GAP_RING;
        if (g->n < KR_MEDIA_GAP_RING)
            g->n++;
    }
    g->prev_t_us = t_us;
    g->have_prev = 1;
    return gap;
}
