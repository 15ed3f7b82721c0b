/* kr_recog_assign.c - maximum-weight assignment of cards to ids (Hungarian algorithm,
 * O(n^2 m) shortest augmenting paths with potentials), used for joint identification.
 * SPDX-License-Identifier: MIT                                                       */
#include "kr_recog.h"

#include <float.h>
#include <stdlib.h>

/* Classic formulation on costs c = -w (rows 1..n, columns 1..m, n <= m): for each row,
 * grow an alternating tree from the free column 0 along reduced costs c - u - v, take the
 * column with the least reduced cost, update the potentials by that delta, until a free
 * column is reached; then flip the path. Potentials keep all reduced costs >= 0, so the
 * final matching has minimum cost (maximum weight). Forbidden entries get a cost far
 * above any real one and are checked afterwards. */
kr_status kr_recog_assign(const double *w, int n, int m, int *assign, double *total)
{
    const double FORBID = 1e9, BIG = 1e15;
    if (!w || !assign || n < 0 || m < 0 || n > m)
        return KR_ERR_INVALID;
    if (n == 0) {
        if (total)
            *total = 0;
        return KR_OK;
    }
    kr_status s = KR_OK;
    double   *u = calloc((size_t)n + 1, sizeof *u);
    double   *v = calloc((size_t)m + 1, sizeof *v);
    double   *minv = malloc(((size_t)m + 1) * sizeof *minv);
    int      *p = calloc((size_t)m + 1, sizeof *p);
    int      *way = calloc((size_t)m + 1, sizeof *way);
    char     *used = malloc((size_t)m + 1);
    if (!u || !v || !minv || !p || !way || !used) {
        s = KR_ERR_NOMEM;
        goto fail;
    }
#define COST(i, j) (w[(size_t)((i) - 1) * (size_t)m + (size_t)((j) - 1)] <= -FORBID \
                        ? FORBID * 10                                           \
                        : -w[(size_t)((i) - 1) * (size_t)m + (size_t)((j) - 1)])
    for (int i = 1; i <= n; i++) {
        p[0] = i;
        int j0 = 0;
        for (int j = 0; j <= m; j++) {
            minv[j] = BIG;
            used[j] = 0;
        }
        do {
            used[j0] = 1;
            int    i0 = p[j0], j1 = 0;
            double delta = BIG;
            for (int j = 1; j <= m; j++) {
                if (used[j])
                    continue;
                double cur = COST(i0, j) - u[i0] - v[j];
                if (cur < minv[j]) {
                    minv[j] = cur;
                    way[j] = j0;
                }
                if (minv[j] < delta) {
                    delta = minv[j];
                    j1 = j;
                }
            }
            if (j1 == 0) { /* cannot happen with n <= m; guards against NaN weights */
                s = KR_ERR_INVALID;
                goto fail;
            }
            for (int j = 0; j <= m; j++) {
                if (used[j]) {
                    u[p[j]] += delta;
                    v[j] -= delta;
                } else {
                    minv[j] -= delta;
                }
            }
            j0 = j1;
        } while (p[j0] != 0);
        do {
            int j1 = way[j0];
            p[j0] = p[j1];
            j0 = j1;
        } while (j0);
    }
#undef COST
    double sum = 0;
    for (int j = 1; j <= m; j++)
        if (p[j]) {
            double x = w[(size_t)(p[j] - 1) * (size_t)m + (size_t)(j - 1)];
            if (x <= -FORBID) {
                s = KR_ERR_INVALID;
                goto fail;
            }
            assign[p[j] - 1] = j - 1;
            sum += x;
        }
    if (total)
        *total = sum;
fail:
    free(u);
    free(v);
    free(minv);
    free(p);
    free(way);
    free(used);
    return s;
}
