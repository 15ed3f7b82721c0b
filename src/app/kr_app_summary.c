/* kr_app_summary.c - what analyze's and live's summary.json say alike about the footage.
 * SPDX-License-Identifier: MIT */
#include "kr_app.h"

#include "kr_calib.h"
#include "kr_pipe.h"

void kr_app_summary_footage(FILE *f, const kr_pipe_stats *ps)
{
    fprintf(f, "  \"light\": {\"flicker_rms\": %.4f, \"steadied_frames\": %lld},\n", ps->light_swing_max,
            (long long)ps->light_steadied);
    fprintf(f, "  \"noise\": {\"noisy\": %s, \"level_max\": %d, \"noisy_frames\": %lld},\n",
            kr_pipe_noisy(ps) ? "true" : "false", ps->noise_max, (long long)ps->noisy_frames);
}

void kr_app_summary_camera(FILE *f, const struct kr_calib *calib)
{
    kr_calib_camera cam;
    if (calib && kr_calib_camera_pose(calib, &cam) == KR_OK)
        fprintf(f, "{\"x_mm\": %.1f, \"y_mm\": %.1f, \"height_mm\": %.0f, \"tilt_deg\": %.2f}", cam.x_mm, cam.y_mm,
                cam.height_mm, cam.tilt_deg);
    else
        fprintf(f, "null");
}
