/* kr_track_trace.c - one JSON line of tracker state per frame (mat mm), read by the
 * evaluators (tools/eval_track.py) from `analyze --trace` and tools/track_trace.
 * SPDX-License-Identifier: MIT */
#include "kr_track.h"

#include <stdio.h>

kr_status kr_track_write_trace(FILE *f, const kr_track_frame *tf)
{
    if (!f || !tf)
        return KR_ERR_INVALID;
    fprintf(f, "{\"t_us\":%lld,\"ready\":%d,\"gap_us\":%lld,\"contact\":%d,\"gain\":%.4f,\"light_swing\":%.4f,"
               "\"light_steadied\":%d,\"noise_floor\":%d,\"hands\":[",
            (long long)tf->t_us, tf->ready, (long long)tf->gap_us, tf->hand_contact, tf->gain, tf->light_swing,
            tf->light_steadied, tf->noise_floor);
    for (int p = 0; p < 2; p++) {
        const kr_track_hand *h = &tf->hands[p];
        fprintf(f, "%s{\"player\":\"%c\",\"present\":%d", p ? "," : "", p ? 'B' : 'A', h->present);
        if (h->present)
            fprintf(f, ",\"lead\":[%.1f,%.1f],\"base\":[%.1f,%.1f],\"v\":[%.0f,%.0f],\"area\":%.0f,"
                       "\"in_field\":%d,\"side\":%d,\"shadow_px\":%.0f,\"shadow_dist\":%.1f,\"tip_change\":%.0f,"
                       "\"tip_change_own\":%.0f,\"tip_own_share\":%.2f,\"tip_change_own_lit\":%.0f,"
                       "\"near_area\":%.0f,\"near_own\":%.0f,\"at_view_edge\":%d",
                    h->lead_x_mm, h->lead_y_mm, h->base_x_mm, h->base_y_mm, h->vx_mm_s, h->vy_mm_s, h->area_mm2,
                    h->in_field, h->side, h->shadow_px, h->shadow_dist_mm, h->tip_change, h->tip_change_own,
                    h->tip_own_share, h->tip_change_own_lit, h->near_area_mm2, h->near_own_mm2,
                    h->at_view_edge);
        fputc('}', f);
    }
    fprintf(f, "],\"cards\":[");
    for (int k = 0; k < tf->n_cards; k++) {
        const kr_track_card *c = &tf->cards[k];
        fprintf(f, "%s[%d,%.2f,%.2f,%d,%d,%d,%d,%d,%.2f,%.2f,%.2f,%.2f,%.2f]", k ? "," : "", c->id, c->x_mm,
                c->y_mm, c->moving, c->displaced, c->occluded, c->out_of_field, c->lost, c->change,
                c->hand_cover[0], c->hand_cover[1], c->visible, c->angle_deg);
    }
    fprintf(f, "]}\n");
    return ferror(f) ? KR_ERR_IO : KR_OK;
}
