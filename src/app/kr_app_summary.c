/* kr_app_summary.c - what analyze's and live's summary.json say alike about the footage.
 * SPDX-License-Identifier: MIT */
#include "kr_app.h"

#include "kr_pipe.h"

void kr_app_summary_footage(FILE *f, const kr_pipe_stats *ps)
{
    fprintf(f, "  \"light\": {\"flicker_rms\": %.4f, \"steadied_frames\": %lld},\n", ps->light_swing_max,
            (long long)ps->light_steadied);
    fprintf(f, "  \"noise\": {\"noisy\": %s, \"level_max\": %d, \"noisy_frames\": %lld},\n",
            kr_pipe_noisy(ps) ? "true" : "false", ps->noise_max, (long long)ps->noisy_frames);
}
