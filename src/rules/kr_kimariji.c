/* kr_kimariji.c - dynamic kimariji: decisive kana of a card against the unread cards,
 * compared by sound (おう = おお), as competitive karuta counts them.
 * SPDX-License-Identifier: MIT */
#include "kr_rules.h"
#include "kr_rules_internal.h"

#include <string.h>

#define KANA_MAX 32 /* kami are at most 21 kana */

/* Decodes one UTF-8 code point at s (returns bytes used, 0 at end or on a bad byte). */
static int utf8_next(const char *s, uint32_t *cp)
{
    const unsigned char *u = (const unsigned char *)s;
    if (u[0] == 0)
        return 0;
    if (u[0] < 0x80) {
        *cp = u[0];
        return 1;
    }
    if ((u[0] & 0xE0) == 0xC0 && (u[1] & 0xC0) == 0x80) {
        *cp = ((uint32_t)(u[0] & 0x1F) << 6) | (u[1] & 0x3F);
        return 2;
    }
    if ((u[0] & 0xF0) == 0xE0 && (u[1] & 0xC0) == 0x80 && (u[2] & 0xC0) == 0x80) {
        *cp = ((uint32_t)(u[0] & 0x0F) << 12) | ((uint32_t)(u[1] & 0x3F) << 6) | (u[2] & 0x3F);
        return 3;
    }
    return 0;
}

/* Hiragana whose vowel is o: a following う or お lengthens it (おう, おお, こう ...). */
static bool o_vowel(uint32_t cp)
{
    static const uint32_t o_row[] = {0x3049, 0x304A, 0x3053, 0x3054, 0x305D, 0x305E, 0x3068,
                                     0x3069, 0x306E, 0x307B, 0x307C, 0x307D, 0x3082, 0x3087,
                                     0x3088, 0x308D, 0x3092};
    for (size_t i = 0; i < sizeof o_row / sizeof o_row[0]; i++)
        if (o_row[i] == cp)
            return true;
    return false;
}

/* Sound codes of a kana string; byte offsets of each kana in off[] (off[n] = end). */
static int sounds(const char *s, uint32_t *snd, int *off)
{
    int n = 0, pos = 0;
    uint32_t prev = 0, cp = 0;
    while (n < KANA_MAX) {
        int len = utf8_next(s + pos, &cp);
        if (len == 0)
            break;
        off[n] = pos;
        /* the long o: う or お after an o-vowel kana sounds as お */
        snd[n] = ((cp == 0x3046 || cp == 0x304A) && o_vowel(prev)) ? 0x304A : cp;
        prev = cp;
        pos += len;
        n++;
    }
    off[n] = pos;
    return n;
}

int kr_rules_common_sound(int32_t a, int32_t b)
{
    const kr_rules_poem *pa = kr_rules_poem_get(a), *pb = kr_rules_poem_get(b);
    if (!pa || !pb)
        return 0;
    uint32_t sa[KANA_MAX], sb[KANA_MAX];
    int oa[KANA_MAX + 1], ob[KANA_MAX + 1];
    int na = sounds(pa->kami, sa, oa), nb = sounds(pb->kami, sb, ob);
    int i = 0;
    while (i < na && i < nb && sa[i] == sb[i])
        i++;
    return i;
}

int kr_rules_kimariji(int32_t card, const bool unread[KR_RULES_CARDS + 1], char *out, size_t cap)
{
    const kr_rules_poem *p = kr_rules_poem_get(card);
    if (!p || !unread)
        return 0;
    uint32_t snd[KANA_MAX];
    int off[KANA_MAX + 1];
    int n = sounds(p->kami, snd, off);
    int need = 1;
    for (int32_t o = 1; o <= KR_RULES_CARDS; o++) {
        if (o == card || !unread[o])
            continue;
        int c = kr_rules_common_sound(card, o) + 1;
        if (c > need)
            need = c;
    }
    if (need > n)
        need = n; /* a kami that is a prefix of another (never in the set) */
    if (out) {
        size_t bytes = (size_t)off[need];
        if (bytes + 1 > cap)
            return 0;
        memcpy(out, p->kami, bytes);
        out[bytes] = '\0';
    }
    return need;
}

int kr_rules_kana_prefix(int32_t card, int n, char *out, size_t cap)
{
    const kr_rules_poem *p = kr_rules_poem_get(card);
    if (!p || !out || n < 0)
        return 0;
    uint32_t snd[KANA_MAX];
    int off[KANA_MAX + 1];
    int total = sounds(p->kami, snd, off);
    if (n > total)
        n = total;
    size_t bytes = (size_t)off[n];
    if (bytes + 1 > cap)
        return 0;
    memcpy(out, p->kami, bytes);
    out[bytes] = '\0';
    return n;
}

int kr_rules_kana_count(int32_t card)
{
    const kr_rules_poem *p = kr_rules_poem_get(card);
    if (!p)
        return 0;
    uint32_t snd[KANA_MAX];
    int off[KANA_MAX + 1];
    return sounds(p->kami, snd, off);
}
