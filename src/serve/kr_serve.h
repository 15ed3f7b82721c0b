/* kr_serve.h - what the judge sees: the self-contained review page (index.html)
 * written from a match log and its rulings, and the live judge's HTTP/SSE server.
 * SPDX-License-Identifier: MIT                                                    */
#ifndef KR_SERVE_H
#define KR_SERVE_H
#include "kr_core.h"
#include <stdbool.h>
#ifdef __cplusplus
extern "C" {
#endif

/* Getting started (review page):
 *   kr_serve_review_create(&r);
 *   kr_serve_review_load_log(r, "DIR/events.jsonl");      match log (karuta-match/1)
 *   kr_serve_review_load_rulings(r, "DIR/rulings.jsonl"); karuta-rulings/1
 *   n = kr_serve_review_clip_wants(r, wants, cap);        which readings want a clip, and when
 *   ... make the clips ...; kr_serve_review_add_clip(r, &clip) for each
 *   kr_serve_review_write_file(r, "DIR/index.html");      complete or absent
 *   kr_serve_review_destroy(r);
 * Getting started (live server):
 *   kr_serve_http_config_default(&cfg); cfg.port = 8080; kr_serve_http_create(&cfg, &srv);
 *   from any thread: kr_serve_http_publish(srv, "ruling", json_line);  never blocks on clients
 *                    kr_serve_http_set_state(srv, json);  kr_serve_http_set_snapshot(srv, jpeg, n);
 *                    kr_serve_http_take_post(srv, buf, cap, &n)  readings typed into the page
 *   kr_serve_http_destroy(srv);
 * Errors: each object keeps a one-line message, kr_serve_*_error(). */

/* ---- review page ------------------------------------------------------- */

typedef struct kr_serve_review kr_serve_review_t; /* opaque */

/* One clip shown on the page, for the ruling of reading `seq`. */
typedef struct kr_serve_clip {
    int32_t     seq;      /* reading the clip shows (ruling's seq) */
    const char *video;    /* MP4 path relative to index.html, e.g. "clips/seq3.mp4"; copied */
    const char *sheet;    /* contact-sheet PNG path relative to index.html, or NULL; copied */
    double      fps;      /* frames per second of the clip file (> 0; frame step = 1/fps s) */
    int64_t     start_us; /* source time (t_us) shown by the clip's first frame */
    int32_t     slow;     /* slow-down factor the clip was made with (1 = real time) */
} kr_serve_clip_t;

/* A reading whose ruling should get a clip (needs review, or decides a take or fault). */
typedef struct kr_serve_clip_want {
    int32_t seq;   /* the ruling's reading */
    int64_t at_us; /* source time to centre the clip on: the deciding contact (us) */
} kr_serve_clip_want_t;

kr_status kr_serve_review_create(kr_serve_review_t **out); /* *out caller-owned (_destroy) */
void      kr_serve_review_destroy(kr_serve_review_t *r); /* NULL-safe */
/* Last error as "FILE:LINE: what" (owned by r; valid until the next call on r). */
const char *kr_serve_review_error(const kr_serve_review_t *r);

/* Load JSON Lines from a file, or from text (name is used in error messages). path,
 * name and text are borrowed (parsed during the call, not kept).
 * The log gives the players, layout, reading times and evidence events; the
 * rulings give the page's content. Bad JSON or a missing "type": KR_ERR_FORMAT. */
kr_status kr_serve_review_load_log(kr_serve_review_t *r, const char *path);
kr_status kr_serve_review_load_log_text(kr_serve_review_t *r, const char *name, const char *text);
kr_status kr_serve_review_load_rulings(kr_serve_review_t *r, const char *path);
kr_status kr_serve_review_load_rulings_text(kr_serve_review_t *r, const char *name,
                                            const char *text);
/* analyze's summary.json (karuta-summary/1): what it found about the footage is said at
 * the page's top (a video that broke off, a poor calibration, missing frames, interlacing,
 * a rolling shutter, flickering lamps). Optional. Borrowed as the loads above; not a JSON
 * object: KR_ERR_FORMAT ("NAME:LINE: ..."), unreadable file: KR_ERR_IO. */
kr_status kr_serve_review_load_summary(kr_serve_review_t *r, const char *path);
kr_status kr_serve_review_load_summary_text(kr_serve_review_t *r, const char *name, const char *text);
/* Source name shown in the page heading (e.g. the video's file name); copied. */
kr_status kr_serve_review_set_source(kr_serve_review_t *r, const char *name);
/* Adds (or replaces) the clip of c->seq. Strings are copied. */
kr_status kr_serve_review_add_clip(kr_serve_review_t *r, const kr_serve_clip_t *c);

/* Number of rulings wanting a clip; writes up to cap of them to out (may be NULL
 * when cap is 0), in reading order. */
size_t kr_serve_review_clip_wants(const kr_serve_review_t *r, kr_serve_clip_want_t *out,
                                  size_t cap);

/* Writes the whole page (one self-contained HTML file: inline CSS, JS, SVG; it
 * loads nothing from the network) to out. */
kr_status kr_serve_review_write(const kr_serve_review_t *r, FILE *out);
/* Same, to path, complete or absent (kr_outfile). */
kr_status kr_serve_review_write_file(const kr_serve_review_t *r, const char *path);

/* HTML-escapes s (& < > " ') onto out; NULL writes nothing. */
void kr_serve_html_escape(FILE *out, const char *s);

/* ---- live server ------------------------------------------------------- */

typedef struct kr_serve_http kr_serve_http_t; /* opaque */

typedef struct kr_serve_http_config {
    uint16_t    port;          /* TCP port on 127.0.0.1; 0 = any free port (see _port()) */
    size_t      ring_messages; /* SSE messages kept for catching-up clients (count) */
    size_t      max_clients;   /* simultaneous connections; more are refused */
    int         keepalive_ms;  /* SSE comment sent to idle clients this often (ms) */
    size_t      post_queue;    /* readings typed into the page, waiting to be taken (count) */
    const char *files_dir;     /* directory served under /files/ (replay clips), or NULL; copied */
} kr_serve_http_config;

void kr_serve_http_config_default(kr_serve_http_config *cfg); /* fills caller's *cfg */
/* Starts the server (its own threads: one per connection). cfg is copied. *out
 * caller-owned (kr_serve_http_destroy). */
kr_status kr_serve_http_create(const kr_serve_http_config *cfg, kr_serve_http_t **out);
void      kr_serve_http_destroy(kr_serve_http_t *s); /* NULL-safe; ends every stream */
uint16_t  kr_serve_http_port(const kr_serve_http_t *s); /* the TCP port actually bound */
const char *kr_serve_http_error(const kr_serve_http_t *s); /* owned by s */

/* Queues an SSE message (event name, one line of data, copied) for every client.
 * Thread-safe; takes one mutex for a copy and never waits for a client: a client
 * that falls more than ring_messages behind is disconnected (its browser reconnects
 * and gets the state again). Newlines in data are sent as separate data: lines. */
kr_status kr_serve_http_publish(kr_serve_http_t *s, const char *event, const char *data);
/* The state sent first (event "state") to every client that connects; copied. */
kr_status kr_serve_http_set_state(kr_serve_http_t *s, const char *json);
/* The latest live view, served at /snapshot.jpg; copied. */
kr_status kr_serve_http_set_snapshot(kr_serve_http_t *s, const uint8_t *jpeg, size_t len);
/* Takes the oldest reading record typed into the page (POST /reading, one JSON
 * line) into buf (NUL-terminated). KR_ERR_AGAIN if none waits; KR_ERR_INVALID if
 * it does not fit cap (it is dropped). Thread-safe, never blocks. */
kr_status kr_serve_http_take_post(kr_serve_http_t *s, char *buf, size_t cap, size_t *len);
/* Counters for tests and benchmarks; get_stats copies them into caller's *out
 * (thread-safe). */
typedef struct kr_serve_http_stats {
    uint64_t published;    /* messages published */
    uint64_t clients;      /* connections served since start */
    uint64_t dropped;      /* SSE clients disconnected for being too slow */
    uint64_t snapshots;    /* /snapshot.jpg requests answered */
} kr_serve_http_stats;
void kr_serve_http_get_stats(kr_serve_http_t *s, kr_serve_http_stats *out);

/* The live judge's page (static HTML+JS, NUL-terminated, never freed). */
const char *kr_serve_live_page(void);

#ifdef __cplusplus
}
#endif
#endif /* KR_SERVE_H */
