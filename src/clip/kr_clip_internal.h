/* kr_clip_internal.h - kr_clip's shared internals (events store), not public API.
 * SPDX-License-Identifier: MIT */
#ifndef KR_CLIP_INTERNAL_H
#define KR_CLIP_INTERNAL_H
#include "kr_clip.h"

#define KR_CLIP_MAX_CARD 100 /* card ids 1 .. 100 */

typedef struct kr_clip_card {
    int    id, owner;  /* owner 0 = A, 1 = B */
    double x_mm, y_mm; /* centre in the layout */
} kr_clip_card;

typedef struct kr_clip_move {
    int64_t t_us;
    int     card;
    double  x_mm, y_mm; /* new centre */
} kr_clip_move;

typedef struct kr_clip_send {
    int64_t t_us;
    int     card;
    int     from; /* 0 = A, 1 = B: the card then lies in the other player's territory */
} kr_clip_send;

struct kr_clip_events {
    kr_clip_contact *contacts; /* owned, sorted by t_us */
    size_t           n_contacts;
    kr_clip_card     cards[KR_CLIP_MAX_CARD]; /* the first layout record */
    int              n_cards;
    kr_clip_move    *moves; /* owned, rearrange records in file order */
    size_t           n_moves;
    kr_clip_send    *sends; /* owned, send records in file order (their new place is not given) */
    size_t           n_sends;
};

#endif /* KR_CLIP_INTERNAL_H */
