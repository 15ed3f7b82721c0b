/* kr_serve_internal.h - helpers shared inside src/serve (not public): the page
 * resources embedded at build time by embed.py from review.css, review.js, live.html.
 * SPDX-License-Identifier: MIT                                                    */
#ifndef KR_SERVE_INTERNAL_H
#define KR_SERVE_INTERNAL_H
#include "kr_serve.h"

extern const char kr_serve_res_review_css[]; /* NUL-terminated */
extern const char kr_serve_res_review_js[];
extern const char kr_serve_res_live_html[];

#endif /* KR_SERVE_INTERNAL_H */
