/* kr_rules_internal.h - helpers shared between the rules engine's files; not public.
 * SPDX-License-Identifier: MIT */
#ifndef KR_RULES_INTERNAL_H
#define KR_RULES_INTERNAL_H
#include "kr_rules.h"

/* Writes the first n kana of card's kami to out (NUL-terminated); returns the
 * number of kana written (fewer if the kami is shorter), 0 on a bad card or cap. */
int kr_rules_kana_prefix(int32_t card, int n, char *out, size_t cap);

/* Number of kana in card's kami (0 if out of range). */
int kr_rules_kana_count(int32_t card);

#endif /* KR_RULES_INTERNAL_H */
