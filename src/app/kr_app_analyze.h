/* kr_app_analyze.h - `analyze` run in process with a hook (review): the calibration, each
 * tracked frame, each record and ruling as written are handed to the caller.
 * SPDX-License-Identifier: MIT */
#ifndef KR_APP_ANALYZE_H
#define KR_APP_ANALYZE_H
#include "kr_calib.h" /* kr_calib_t */
#include "kr_core.h"  /* kr_status */
#include "kr_rules.h" /* kr_rules_record, kr_rules_output */
#include "kr_track.h" /* kr_track_t, kr_track_frame */

typedef struct kr_app_analyze_hook {
    void *ctx; /* borrowed; passed back */
    /* Each frame after the pipeline tracked it (trk: the pipeline's tracker, tf its
     * frame; both borrowed for the call), on analyze's thread. Anything but KR_OK stops
     * the run (exit 1, after one line naming the status). NULL: none. */
    kr_status (*frame)(void *ctx, const kr_track_t *trk, const kr_track_frame *tf);
    /* Non-NULL: the calibration analyze used (loaded or made from the first frame) is
     * moved here whenever there was one, also when the run fails (exit status not 0);
     * caller-owned (kr_calib_destroy). */
    kr_calib_t **calib_out;
    /* Once the calibration is there, before the first frame (calib: analyze's, borrowed;
     * valid until kr_app_analyze_hooked returns, and after it in *calib_out when set).
     * NULL: none. */
    void (*started)(void *ctx, const kr_calib_t *calib);
    /* Each record after it was written to events.jsonl, each ruling after it was written
     * to rulings.jsonl (borrowed for the call), on analyze's thread. NULL: none. */
    void (*record)(void *ctx, const kr_rules_record *r);
    void (*output)(void *ctx, const kr_rules_output *o);
} kr_app_analyze_hook;

/* kr_cmd_analyze (same arguments, outputs and exit status) with hook (NULL: none). */
int kr_app_analyze_hooked(int argc, char **argv, const kr_app_analyze_hook *hook);

#endif /* KR_APP_ANALYZE_H */
