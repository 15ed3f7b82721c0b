/* kr_synth_poems.c - poem data (hyakunin-isshu.json), dynamic kimariji, PRNG, UTF-8.
 * Kimariji are compared by sound: う after お counts as お (data/README.md).
 * SPDX-License-Identifier: MIT                                                  */
#include "kr_synth_internal.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- PRNG (splitmix64) ---- */
void kr_synth_rng_seed(kr_synth_rng *r, uint64_t seed, uint64_t stream)
{
    r->s = seed * 0x9E3779B97F4A7C15ull + stream * 0xD1B54A32D192ED03ull + 0x632BE59BD9B4E019ull;
}

uint64_t kr_synth_rng_u64(kr_synth_rng *r)
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

double kr_synth_rng_uniform(kr_synth_rng *r)
{
    return (double)(kr_synth_rng_u64(r) >> 11) * (1.0 / 9007199254740992.0);
}

double kr_synth_rng_range(kr_synth_rng *r, double a, double b)
{
    return a + (b - a) * kr_synth_rng_uniform(r);
}

double kr_synth_rng_gauss(kr_synth_rng *r)
{
    double u1 = kr_synth_rng_uniform(r), u2 = kr_synth_rng_uniform(r);
    if (u1 < 1e-300)
        u1 = 1e-300;
    return sqrt(-2.0 * log(u1)) * cos(2.0 * KR_PI * u2);
}

/* ---- UTF-8 ---- */
int kr_synth_utf8_decode(const char *s, int *cp, int max)
{
    const unsigned char *p = (const unsigned char *)s;
    int n = 0;
    while (*p && n < max) {
        int c;
        if (*p < 0x80) { c = *p++; }
        else if ((*p & 0xE0) == 0xC0 && p[1]) { c = ((p[0] & 0x1F) << 6) | (p[1] & 0x3F); p += 2; }
        else if ((*p & 0xF0) == 0xE0 && p[1] && p[2]) {
            c = ((p[0] & 0x0F) << 12) | ((p[1] & 0x3F) << 6) | (p[2] & 0x3F); p += 3;
        } else if ((*p & 0xF8) == 0xF0 && p[1] && p[2] && p[3]) {
            c = ((p[0] & 0x07) << 18) | ((p[1] & 0x3F) << 12) | ((p[2] & 0x3F) << 6) | (p[3] & 0x3F);
            p += 4;
        } else { return -1; }
        cp[n++] = c;
    }
    return n;
}

/* ---- poems ---- */
kr_status kr_synth_poems_load(const char *path, kr_synth_poem poems[101], char *err, size_t errlen)
{
    kr_status st = KR_ERR_FORMAT;
    char *text = NULL;
    cJSON *root = NULL;
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open poem data", path);
        return KR_ERR_IO;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    text = n > 0 ? malloc((size_t)n + 1) : NULL;
    if (!text || fread(text, 1, (size_t)n, f) != (size_t)n) {
        fclose(f);
        snprintf(err, errlen, "%s: cannot read poem data", path);
        free(text);
        return KR_ERR_IO;
    }
    fclose(f);
    text[n] = 0;
    memset(poems, 0, sizeof(kr_synth_poem) * 101);
    root = cJSON_Parse(text);
    if (!cJSON_IsArray(root) || cJSON_GetArraySize(root) != 100) {
        snprintf(err, errlen, "%s: expected an array of 100 poems", path);
        goto fail;
    }
    cJSON *it;
    cJSON_ArrayForEach(it, root) {
        cJSON *no = cJSON_GetObjectItem(it, "no"), *kami = cJSON_GetObjectItem(it, "kami");
        cJSON *lines = cJSON_GetObjectItem(it, "torifuda_lines"), *kim = cJSON_GetObjectItem(it, "kimariji");
        if (!cJSON_IsNumber(no) || no->valueint < 1 || no->valueint > 100 || !cJSON_IsString(kami) ||
            !cJSON_IsArray(lines) || !cJSON_IsString(kim)) {
            snprintf(err, errlen, "%s: malformed poem entry", path);
            goto fail;
        }
        kr_synth_poem *p = &poems[no->valueint];
        p->no = no->valueint;
        p->kami_n = kr_synth_utf8_decode(kami->valuestring, p->kami, 40);
        if (p->kami_n <= 0) {
            snprintf(err, errlen, "%s: poem %d: bad kami", path, p->no);
            goto fail;
        }
        for (int i = 0; i < p->kami_n; i++) {
            int c = p->kami[i];
            if (c == 0x3046 /* う */ && i > 0 && p->kami_norm[i - 1] == 0x304A /* お */)
                c = 0x304A;
            p->kami_norm[i] = c;
        }
        snprintf(p->kimariji0, sizeof p->kimariji0, "%s", kim->valuestring);
        cJSON *l;
        cJSON_ArrayForEach(l, lines) {
            if (p->n_lines < 3 && cJSON_IsString(l))
                snprintf(p->lines[p->n_lines++], sizeof p->lines[0], "%s", l->valuestring);
        }
    }
    for (int i = 1; i <= 100; i++)
        if (poems[i].no != i) {
            snprintf(err, errlen, "%s: poem %d missing", path, i);
            goto fail;
        }
    st = KR_OK;
fail:
    cJSON_Delete(root);
    free(text);
    return st;
}

int kr_synth_kimariji_len(const kr_synth_poem poems[101], int card, const bool unread[101])
{
    const kr_synth_poem *p = &poems[card];
    int need = 1;
    for (int o = 1; o <= 100; o++) {
        if (o == card || !unread[o])
            continue;
        const kr_synth_poem *q = &poems[o];
        int k = 0;
        while (k < p->kami_n && k < q->kami_n && p->kami_norm[k] == q->kami_norm[k])
            k++;
        if (k + 1 > need)
            need = k + 1;
    }
    return need > p->kami_n ? p->kami_n : need;
}
