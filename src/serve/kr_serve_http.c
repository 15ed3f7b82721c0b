/* kr_serve_http.c - the live judge's HTTP server (libmicrohttpd, one thread per
 * connection): the page, server-sent events from a bounded ring, the latest JPEG
 * snapshot, replay files, and readings typed into the page (POST /reading).
 * SPDX-License-Identifier: MIT                                                 */
#include "kr_serve.h"
#include "kr_serve_internal.h"

#include <arpa/inet.h>
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define POST_MAX_BYTES 8192 /* one reading record typed into the page */

/* Threading: everything below `lock` is guarded by it. The publisher (frame or
 * rules thread) only copies under the lock and signals `cond`; connection
 * threads wait on `cond` with a timeout and copy their next message out. */
struct kr_serve_http {
    struct MHD_Daemon   *mhd;
    kr_serve_http_config cfg;
    char                *files_dir; /* owned copy of cfg.files_dir */
    uint16_t             port;
    pthread_mutex_t      lock;
    pthread_cond_t       cond;
    bool                 stopping;
    char               **ring;      /* owned; ring[i % n] holds message i (an SSE block) */
    uint64_t             head;      /* number of messages ever published */
    char                *state;     /* owned SSE block "event: state..." */
    uint8_t             *snap;      /* owned JPEG */
    size_t               snap_len;
    char               **posts;     /* owned queue of typed readings */
    size_t               post_head, post_count;
    kr_serve_http_stats  stats;
    char                 err[256];
};

typedef struct sse_client {
    kr_serve_http_t *s;
    uint64_t         next;       /* next ring message to send */
    bool             state_sent;
    char            *cur;        /* owned: message being sent */
    size_t           cur_len, cur_off;
} sse_client;

typedef struct post_ctx {
    char   buf[POST_MAX_BYTES + 1];
    size_t len;
    bool   too_big;
} post_ctx;

void kr_serve_http_config_default(kr_serve_http_config *cfg)
{
    cfg->port = 8080;
    cfg->ring_messages = 256;
    cfg->max_clients = 32;
    cfg->keepalive_ms = 10000;
    cfg->post_queue = 64;
    cfg->files_dir = NULL;
}

/* "event: E\ndata: line\ndata: line\n\n" (malloc'd). */
static char *sse_block(const char *event, const char *data)
{
    size_t lines = 1;
    for (const char *p = data; *p; p++)
        lines += *p == '\n';
    size_t n = strlen(event) + strlen(data) + lines * 7 + 16;
    char  *b = malloc(n);
    if (!b)
        return NULL;
    char *w = b;
    w += sprintf(w, "event: %s\n", event);
    const char *p = data;
    for (;;) {
        const char *e = strchr(p, '\n');
        size_t      l = e ? (size_t)(e - p) : strlen(p);
        memcpy(w, "data: ", 6);
        w += 6;
        memcpy(w, p, l);
        w += l;
        *w++ = '\n';
        if (!e)
            break;
        p = e + 1;
    }
    *w++ = '\n';
    *w = '\0';
    return b;
}

static void abs_deadline(struct timespec *ts, int ms)
{
    clock_gettime(CLOCK_MONOTONIC, ts);
    ts->tv_sec += ms / 1000;
    ts->tv_nsec += (long)(ms % 1000) * 1000000L;
    if (ts->tv_nsec >= 1000000000L) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000L;
    }
}

/* MHD content reader for /events: blocks (thread per connection) until a message
 * is due, a keepalive is due, or the server stops. */
static ssize_t sse_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    sse_client      *c = cls;
    kr_serve_http_t *s = c->s;
    pthread_mutex_lock(&s->lock);
    while (!c->cur) {
        if (s->stopping) {
            pthread_mutex_unlock(&s->lock);
            return MHD_CONTENT_READER_END_OF_STREAM;
        }
        if (!c->state_sent) {
            c->state_sent = true;
            c->next = s->head;
            c->cur = kr_strdup(s->state ? s->state : "event: state\ndata: {}\n\n");
            break;
        }
        if (c->next < s->head) {
            if (s->head - c->next > s->cfg.ring_messages) {
                /* too slow: cut it off; its browser reconnects and gets the state */
                s->stats.dropped++;
                pthread_mutex_unlock(&s->lock);
                return MHD_CONTENT_READER_END_WITH_ERROR;
            }
            c->cur = kr_strdup(s->ring[c->next % s->cfg.ring_messages]);
            c->next++;
            break;
        }
        struct timespec ts;
        abs_deadline(&ts, s->cfg.keepalive_ms);
        int rc = pthread_cond_timedwait(&s->cond, &s->lock, &ts);
        if (rc == ETIMEDOUT && !s->stopping && c->next == s->head) {
            c->cur = kr_strdup(": keepalive\n\n");
            break;
        }
    }
    pthread_mutex_unlock(&s->lock);
    if (!c->cur)
        return MHD_CONTENT_READER_END_WITH_ERROR;
    if (!c->cur_len)
        c->cur_len = strlen(c->cur);
    size_t n = c->cur_len - c->cur_off;
    if (n > max)
        n = max;
    memcpy(buf, c->cur + c->cur_off, n);
    c->cur_off += n;
    if (c->cur_off == c->cur_len) {
        free(c->cur);
        c->cur = NULL;
        c->cur_len = c->cur_off = 0;
    }
    return (ssize_t)n;
}

static void sse_free(void *cls)
{
    sse_client *c = cls;
    if (c) {
        free(c->cur);
        free(c);
    }
}

static enum MHD_Result reply(struct MHD_Connection *conn, unsigned code, const char *type,
                             const void *body, size_t len, enum MHD_ResponseMemoryMode mode)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(len, (void *)body, mode);
    if (!r)
        return MHD_NO;
    MHD_add_response_header(r, "Content-Type", type);
    MHD_add_response_header(r, "Cache-Control", "no-store");
    enum MHD_Result ret = MHD_queue_response(conn, code, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result reply_text(struct MHD_Connection *conn, unsigned code, const char *json)
{
    return reply(conn, code, "application/json", json, strlen(json), MHD_RESPMEM_MUST_COPY);
}

static const char *mime_of(const char *name)
{
    const char *dot = strrchr(name, '.');
    if (dot && !strcmp(dot, ".mp4"))
        return "video/mp4";
    if (dot && !strcmp(dot, ".png"))
        return "image/png";
    if (dot && (!strcmp(dot, ".jpg") || !strcmp(dot, ".jpeg")))
        return "image/jpeg";
    if (dot && (!strcmp(dot, ".json") || !strcmp(dot, ".jsonl")))
        return "application/json";
    return "application/octet-stream";
}

static enum MHD_Result serve_file(kr_serve_http_t *s, struct MHD_Connection *conn, const char *name)
{
    if (!s->files_dir || !*name || strchr(name, '/') || name[0] == '.')
        return reply_text(conn, MHD_HTTP_NOT_FOUND, "{\"error\":\"not found\"}");
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", s->files_dir, name);
    int         fd = open(path, O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        if (fd >= 0)
            close(fd);
        return reply_text(conn, MHD_HTTP_NOT_FOUND, "{\"error\":\"not found\"}");
    }
    struct MHD_Response *r = MHD_create_response_from_fd((uint64_t)st.st_size, fd);
    if (!r) {
        close(fd);
        return MHD_NO;
    }
    MHD_add_response_header(r, "Content-Type", mime_of(name));
    MHD_add_response_header(r, "Cache-Control", "no-store");
    enum MHD_Result ret = MHD_queue_response(conn, MHD_HTTP_OK, r);
    MHD_destroy_response(r);
    return ret;
}

/* Checks a typed reading (one JSON object with a "type") and queues it. */
static enum MHD_Result take_post(kr_serve_http_t *s, struct MHD_Connection *conn, post_ctx *p)
{
    if (p->too_big)
        return reply_text(conn, MHD_HTTP_CONTENT_TOO_LARGE, "{\"error\":\"record too long\"}");
    p->buf[p->len] = '\0';
    char *b = p->buf;
    while (*b == ' ' || *b == '\n' || *b == '\r' || *b == '\t')
        b++;
    size_t n = strlen(b);
    while (n && (b[n - 1] == ' ' || b[n - 1] == '\n' || b[n - 1] == '\r' || b[n - 1] == '\t'))
        b[--n] = '\0';
    cJSON *j = cJSON_Parse(b);
    bool   ok = cJSON_IsObject(j) && cJSON_IsString(cJSON_GetObjectItemCaseSensitive(j, "type"));
    char  *line = ok ? cJSON_PrintUnformatted(j) : NULL; /* one line, whatever was typed */
    cJSON_Delete(j);
    if (!ok)
        return reply_text(conn, MHD_HTTP_BAD_REQUEST, "{\"error\":\"not a JSON record with a \\\"type\\\"\"}");
    if (!line)
        return reply_text(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "{\"error\":\"out of memory\"}");
    pthread_mutex_lock(&s->lock);
    bool full = s->post_count == s->cfg.post_queue;
    if (!full) {
        s->posts[(s->post_head + s->post_count) % s->cfg.post_queue] = line;
        s->post_count++;
        line = NULL;
    }
    pthread_mutex_unlock(&s->lock);
    free(line);
    if (full)
        return reply_text(conn, MHD_HTTP_SERVICE_UNAVAILABLE, "{\"error\":\"too many records waiting\"}");
    return reply_text(conn, MHD_HTTP_ACCEPTED, "{\"ok\":true}");
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version,
                                  const char *upload_data, size_t *upload_size, void **con_cls)
{
    (void)version;
    kr_serve_http_t *s = cls;
    if (!strcmp(method, "POST") && !strcmp(url, "/reading")) {
        post_ctx *p = *con_cls;
        if (!p) {
            p = calloc(1, sizeof *p);
            if (!p)
                return MHD_NO;
            *con_cls = p;
            return MHD_YES;
        }
        if (*upload_size) {
            if (p->len + *upload_size > POST_MAX_BYTES)
                p->too_big = true;
            else {
                memcpy(p->buf + p->len, upload_data, *upload_size);
                p->len += *upload_size;
            }
            *upload_size = 0;
            return MHD_YES;
        }
        return take_post(s, conn, p);
    }
    if (strcmp(method, "GET") && strcmp(method, "HEAD"))
        return reply_text(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "{\"error\":\"method not allowed\"}");
    if (*con_cls == NULL) { /* first call: headers only */
        *con_cls = s;
        return MHD_YES;
    }
    pthread_mutex_lock(&s->lock);
    s->stats.clients++;
    pthread_mutex_unlock(&s->lock);
    if (!strcmp(url, "/") || !strcmp(url, "/index.html")) {
        const char *page = kr_serve_live_page();
        return reply(conn, MHD_HTTP_OK, "text/html; charset=utf-8", page, strlen(page), MHD_RESPMEM_PERSISTENT);
    }
    if (!strcmp(url, "/events")) {
        sse_client *c = calloc(1, sizeof *c);
        if (!c)
            return MHD_NO;
        c->s = s;
        struct MHD_Response *r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 4096, sse_read, c, sse_free);
        if (!r) {
            free(c);
            return MHD_NO;
        }
        MHD_add_response_header(r, "Content-Type", "text/event-stream");
        MHD_add_response_header(r, "Cache-Control", "no-store");
        MHD_add_response_header(r, "X-Accel-Buffering", "no");
        enum MHD_Result ret = MHD_queue_response(conn, MHD_HTTP_OK, r);
        MHD_destroy_response(r);
        return ret;
    }
    if (!strcmp(url, "/snapshot.jpg")) {
        pthread_mutex_lock(&s->lock);
        uint8_t *copy = s->snap_len ? malloc(s->snap_len) : NULL;
        size_t   n = copy ? s->snap_len : 0;
        if (copy)
            memcpy(copy, s->snap, n);
        s->stats.snapshots += copy != NULL;
        pthread_mutex_unlock(&s->lock);
        if (!copy)
            return reply_text(conn, MHD_HTTP_SERVICE_UNAVAILABLE, "{\"error\":\"no frame yet\"}");
        return reply(conn, MHD_HTTP_OK, "image/jpeg", copy, n, MHD_RESPMEM_MUST_FREE);
    }
    if (!strcmp(url, "/state")) {
        pthread_mutex_lock(&s->lock);
        const char *st = s->state ? strstr(s->state, "data: ") : NULL;
        char       *copy = kr_strdup(st ? st + 6 : "{}");
        pthread_mutex_unlock(&s->lock);
        if (!copy)
            return MHD_NO;
        char *e = strchr(copy, '\n');
        if (e)
            *e = '\0';
        return reply(conn, MHD_HTTP_OK, "application/json", copy, strlen(copy), MHD_RESPMEM_MUST_FREE);
    }
    if (!strncmp(url, "/files/", 7))
        return serve_file(s, conn, url + 7);
    return reply_text(conn, MHD_HTTP_NOT_FOUND, "{\"error\":\"not found\"}");
}

static void on_done(void *cls, struct MHD_Connection *conn, void **con_cls,
                    enum MHD_RequestTerminationCode toe)
{
    (void)conn;
    (void)toe;
    if (*con_cls && *con_cls != cls)
        free(*con_cls); /* a post_ctx */
    *con_cls = NULL;
}

kr_status kr_serve_http_create(const kr_serve_http_config *cfg, kr_serve_http_t **out)
{
    *out = NULL;
    if (!cfg || cfg->ring_messages < 2 || cfg->max_clients < 1 || cfg->keepalive_ms < 10 || cfg->post_queue < 1)
        return KR_ERR_INVALID;
    kr_serve_http_t *s = calloc(1, sizeof *s);
    if (!s)
        return KR_ERR_NOMEM;
    s->cfg = *cfg;
    pthread_mutex_init(&s->lock, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&s->cond, &ca);
    pthread_condattr_destroy(&ca);
    s->ring = calloc(cfg->ring_messages, sizeof *s->ring);
    s->posts = calloc(cfg->post_queue, sizeof *s->posts);
    s->files_dir = cfg->files_dir ? kr_strdup(cfg->files_dir) : NULL;
    s->cfg.files_dir = s->files_dir;
    if (!s->ring || !s->posts || (cfg->files_dir && !s->files_dir)) {
        kr_serve_http_destroy(s);
        return KR_ERR_NOMEM;
    }
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_port = htons(cfg->port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    s->mhd = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION,
                              cfg->port, NULL, NULL, on_request, s,
                              MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
                              MHD_OPTION_CONNECTION_LIMIT, (unsigned int)cfg->max_clients,
                              MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)(cfg->keepalive_ms / 1000 * 3 + 10),
                              MHD_OPTION_NOTIFY_COMPLETED, on_done, s,
                              MHD_OPTION_END);
    if (!s->mhd) {
        kr_log(KR_LOG_ERROR, "http: cannot listen on 127.0.0.1:%u: %s", (unsigned)cfg->port,
               errno ? strerror(errno) : "libmicrohttpd failed");
        kr_serve_http_destroy(s);
        return KR_ERR_IO;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(s->mhd, MHD_DAEMON_INFO_BIND_PORT);
    s->port = info ? info->port : cfg->port;
    *out = s;
    return KR_OK;
}

void kr_serve_http_destroy(kr_serve_http_t *s)
{
    if (!s)
        return;
    pthread_mutex_lock(&s->lock);
    s->stopping = true;
    pthread_cond_broadcast(&s->cond);
    pthread_mutex_unlock(&s->lock);
    if (s->mhd)
        MHD_stop_daemon(s->mhd);
    if (s->ring)
        for (size_t i = 0; i < s->cfg.ring_messages; i++)
            free(s->ring[i]);
    if (s->posts)
        for (size_t i = 0; i < s->cfg.post_queue; i++)
            free(s->posts[i]);
    free(s->ring);
    free(s->posts);
    free(s->state);
    free(s->snap);
    free(s->files_dir);
    pthread_cond_destroy(&s->cond);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

uint16_t kr_serve_http_port(const kr_serve_http_t *s)
{
    return s->port;
}

const char *kr_serve_http_error(const kr_serve_http_t *s)
{
    return s ? s->err : "no server";
}

kr_status kr_serve_http_publish(kr_serve_http_t *s, const char *event, const char *data)
{
    char *b = sse_block(event, data);
    if (!b)
        return KR_ERR_NOMEM;
    pthread_mutex_lock(&s->lock);
    size_t slot = (size_t)(s->head % s->cfg.ring_messages);
    char  *old = s->ring[slot];
    s->ring[slot] = b;
    s->head++;
    s->stats.published++;
    pthread_cond_broadcast(&s->cond);
    pthread_mutex_unlock(&s->lock);
    free(old); /* outside the lock */
    return KR_OK;
}

kr_status kr_serve_http_set_state(kr_serve_http_t *s, const char *json)
{
    char *b = sse_block("state", json);
    if (!b)
        return KR_ERR_NOMEM;
    pthread_mutex_lock(&s->lock);
    char *old = s->state;
    s->state = b;
    pthread_mutex_unlock(&s->lock);
    free(old);
    return KR_OK;
}

kr_status kr_serve_http_set_snapshot(kr_serve_http_t *s, const uint8_t *jpeg, size_t len)
{
    uint8_t *b = malloc(len ? len : 1);
    if (!b)
        return KR_ERR_NOMEM;
    memcpy(b, jpeg, len);
    pthread_mutex_lock(&s->lock);
    uint8_t *old = s->snap;
    s->snap = b;
    s->snap_len = len;
    pthread_mutex_unlock(&s->lock);
    free(old);
    return KR_OK;
}

kr_status kr_serve_http_take_post(kr_serve_http_t *s, char *buf, size_t cap, size_t *len)
{
    pthread_mutex_lock(&s->lock);
    if (!s->post_count) {
        pthread_mutex_unlock(&s->lock);
        return KR_ERR_AGAIN;
    }
    char *line = s->posts[s->post_head];
    s->posts[s->post_head] = NULL;
    s->post_head = (s->post_head + 1) % s->cfg.post_queue;
    s->post_count--;
    pthread_mutex_unlock(&s->lock);
    size_t n = strlen(line);
    kr_status st = KR_OK;
    if (n + 1 > cap)
        st = KR_ERR_INVALID;
    else {
        memcpy(buf, line, n + 1);
        if (len)
            *len = n;
    }
    free(line);
    return st;
}

void kr_serve_http_get_stats(kr_serve_http_t *s, kr_serve_http_stats *out)
{
    pthread_mutex_lock(&s->lock);
    *out = s->stats;
    pthread_mutex_unlock(&s->lock);
}

const char *kr_serve_live_page(void)
{
    return kr_serve_res_live_html;
}
