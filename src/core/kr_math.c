/* kr_math.c - small numeric helpers shared by the stages.
 * SPDX-License-Identifier: MIT */
#include "kr_core.h"

double kr_median(double *v, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
            const double x = v[j];
            v[j] = v[j - 1];
            v[j - 1] = x;
        }
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
