/* kr_media.h - video files through FFmpeg: a decoding reader (frames with container
 * presentation times) and an H.264/MP4 writer (complete-or-nothing output).
 * SPDX-License-Identifier: MIT                                                    */
#ifndef KR_MEDIA_H
#define KR_MEDIA_H
#include "kr_core.h" /* kr_status, kr_image_t */
#ifdef __cplusplus
extern "C" {
#endif

/* Getting started (reading):
 *   kr_media_reader_open(path, &r)           or kr_media_reader_open2(path, &cfg, &r)
 *   kr_media_reader_info(r, &info)           size, nominal fps, duration
 *   while ((s = kr_media_reader_next(r, &f)) == KR_OK) use f.img, f.t_us
 *     (cfg.yuv: use f.yuv, the decoded planes; kr_media_reader_bgr(r, &img) when a BGR
 *      picture is needed; cfg.decode_ahead: decoding runs in the reader's own thread)
 *   s == KR_ERR_EOF: clean end; anything else: kr_media_reader_error(r) says where it broke
 *   kr_media_reader_destroy(r)
 * Getting started (writing):
 *   kr_media_writer_create(path, w, h, fps_num, fps_den, crf, &w)
 *   kr_media_writer_write(w, &bgr, t_us) per frame, t_us strictly increasing
 *   kr_media_writer_close(w)   -> path appears complete; then kr_media_writer_destroy(w)
 *   destroy without close      -> nothing appears at path
 * Threading: one object per thread (with decode_ahead the reader runs one more thread of
 * its own, invisible to the caller); objects are independent. Error texts for
 * failed open/create are thread-local (pass NULL to the _error functions). */

/* One decoded frame. */
typedef struct kr_frame {
    kr_image_t img;  /* BGR (or grey if configured); pixels owned by the reader/capture,
                        valid until the next next()/seek()/destroy call */
    int64_t t_us;    /* container presentation time in microseconds, rebased so the
                        stream's first frame is 0; never index * nominal period */
    int64_t index;   /* frames returned since open, from 0. After a seek it is an
                        estimate, round(t_us * nominal fps / 1e6) (exact for constant rate) */
    int64_t gap_us;  /* (t_us - previous frame's t_us) - frame period when that interval
                        exceeds 1.5 periods, else 0; 0 on the first frame after open or seek.
                        The period is the median of the last 9 intervals (for the first
                        interval: twice the nominal period), so variable-rate footage is
                        judged by its local rate. Lets callers flag dropped/missing frames. */
    int      key;    /* 1: an intra-coded frame (a keyframe: the codec drew the whole picture
                        anew, so its change from the frame before holds the codec's redraw
                        besides any motion); 0 otherwise, and always 0 from a camera */
    kr_yuv_t yuv;    /* the decoded planes when the reader/capture was configured for
                        YUV and the source is planar 4:2:0 (then img may be empty until
                        asked for); y == NULL otherwise. Same lifetime as img */
} kr_frame_t;

/* Gap detector shared by the reader and kr_capture: feed each frame's t_us and get
 * its kr_frame_t.gap_us. Plain value struct, no allocation; the caller owns it. */
#define KR_MEDIA_GAP_RING 9
typedef struct kr_media_gaps {
    int64_t ring[KR_MEDIA_GAP_RING]; /* last intervals, us */
    int     n, pos;
    int64_t nominal_us;              /* nominal frame period, us */
    int64_t prev_t_us;
    int     have_prev;
    int64_t long_us;                 /* the last interval when it was long (> 1.5 local periods), else 0 */
} kr_media_gaps_t;
/* nominal_period_us: the expected frame period (1e6 / fps); <= 0 means 33333. */
void    kr_media_gaps_reset(kr_media_gaps_t *g, int64_t nominal_period_us);
/* Returns the gap (us) before the frame at t_us: 0 unless the interval since the
 * previous frame exceeds 1.5 local periods (see kr_frame_t.gap_us), and but for the first
 * of a run of such intervals within 10 % of each other (a slower rate, not frames lost),
 * nor for one at most 1.5 times the interval before it when the two before it were
 * growing and already longer than a local period (the rate easing down). */
int64_t kr_media_gaps_feed(kr_media_gaps_t *g, int64_t t_us);
/* The local frame period gaps are measured against (us): the median of the last (up to)
 * KR_MEDIA_GAP_RING intervals, or twice the nominal period before any is known. */
int64_t kr_media_gaps_period(const kr_media_gaps_t *g);

typedef struct kr_media_reader kr_media_reader_t; /* opaque */

typedef struct kr_media_info {
    int     w, h;        /* source frame size in pixels (before any configured scaling) */
    double  fps;         /* nominal frame rate (avg_frame_rate, else r_frame_rate), frames/s */
    int64_t duration_us; /* container/stream duration in microseconds; 0 if unknown */
    int64_t frames_est;  /* frame count from the container, else duration * fps; 0 if unknown */
    int     out_w, out_h, out_channels; /* what kr_frame_t.img will be (after configuration) */
    int     interlaced;  /* 1: the stream's frames each hold two fields taken half a period
                            apart (its field order says so); they are read as whole frames */
} kr_media_info_t;

/* Reader options. Defaults (kr_media_reader_config_default): BGR, source size, auto
 * threads, stop at damage, full-quality decoding. */
typedef struct kr_media_reader_config {
    int gray;    /* 1: output 1-channel GRAY8 (the luma plane; zero-copy when not
                    scaling and the source is planar YUV), 0: 3-channel BGR. Default 0 */
    int out_w;   /* output width in px; 0 = source width (or keep aspect if out_h set). Default 0 */
    int out_h;   /* output height in px; 0 = source height (or keep aspect if out_w set). Default 0 */
    int threads; /* decoder (and colour conversion) threads; 0 = automatic. Default 0 */
    int keep_going; /* 1: skip damaged packets/frames instead of failing (frames lost
                       inside the stream show as gap_us, a lost tail does not;
                       kr_media_reader_damage() > 0 tells, and the error text keeps
                       where the first damage was); the end is then always KR_ERR_EOF.
                       0: the first damage is an error. Default 0 */
    int fast;       /* 1: skip the H.264 deblocking filter (faster decoding; slight block
                       edges, harmless for analysis at reduced size, not for viewing).
                       Default 0 */
    int yuv;        /* 1: planar 4:2:0 sources come as kr_frame_t.yuv (the decoder's planes,
                       zero copy at the source size; scaled in YUV, bilinear, to out_w x out_h
                       otherwise: the first step of the BGR path) and img is left empty
                       (px NULL; w, h, channels 3 as configured) until kr_media_reader_bgr()
                       is asked; other sources come as BGR in img with yuv.y NULL. Needs
                       gray 0. Default 0 */
    int decode_ahead; /* > 0: demuxing and decoding run in a thread of the reader's own, up
                       to this many frames ahead of next() (1 ... 64; frames are references, not
                       copies, except that frames to be resized are scaled there, in YUV, into
                       pictures of the ring's own); next() then only hands over (and converts to
                       BGR without the yuv option). With threads 0 the
                       decoder itself gets one thread on a 2-core machine (cores - 1 above).
                       0: decoding inside next(). Default 0 */
} kr_media_reader_config;
void kr_media_reader_config_default(kr_media_reader_config *cfg); /* fills caller's *cfg */

/* Opens path (borrowed, copied) and decodes its first video frame (so open fails on an
 * undecodable file).
 * *out owned by the caller, freed with kr_media_reader_destroy(). On failure *out is
 * NULL and kr_media_reader_error(NULL) holds a one-line message naming the file.
 * Returns KR_ERR_IO (cannot open), KR_ERR_FORMAT (not a video / no video stream / corrupt),
 * KR_ERR_CODEC (no decoder), KR_ERR_INVALID (bad arguments), KR_ERR_NOMEM. */
kr_status kr_media_reader_open(const char *path, kr_media_reader_t **out);
/* Same with options; cfg is copied (NULL = defaults). */
kr_status kr_media_reader_open2(const char *path, const kr_media_reader_config *cfg,
                                kr_media_reader_t **out);
/* Copies the stream description into *info (caller's storage). KR_ERR_INVALID if
 * r or info is NULL. */
kr_status kr_media_reader_info(const kr_media_reader_t *r, kr_media_info_t *info);
/* Next frame in presentation order. KR_OK: *out filled (img borrowed, see kr_frame_t).
 * KR_ERR_EOF at the clean end of the stream. KR_ERR_FORMAT (truncated/corrupt container)
 * or KR_ERR_CODEC (undecodable data): the message says at which time/frame it broke;
 * the frames returned before it are good. No allocation per call in the steady state. */
kr_status kr_media_reader_next(kr_media_reader_t *r, kr_frame_t *out);
/* The BGR picture of the frame the last kr_media_reader_next() returned (configured size):
 * img itself without the yuv option, else converted now (once per frame) from its planes,
 * byte for byte what the reader without yuv returns for that frame. *out: pixels owned by
 * r, valid until the next next()/seek()/destroy call. KR_ERR_INVALID before a frame or
 * after a seek; KR_ERR_CODEC / KR_ERR_NOMEM from the conversion (kr_media_reader_error). */
kr_status kr_media_reader_bgr(kr_media_reader_t *r, kr_image_t *out);
/* Positions the reader so that the next kr_media_reader_next() returns the first frame
 * with t_us >= t_us (decoding from the previous keyframe). t_us past the last frame:
 * next() returns KR_ERR_EOF. Negative t_us is treated as 0. */
kr_status kr_media_reader_seek(kr_media_reader_t *r, int64_t t_us);
/* keep_going readers: damaged packets/frames skipped so far (0 for NULL). */
int64_t kr_media_reader_damage(const kr_media_reader_t *r);
/* Last error text of r; r == NULL: the calling thread's last failed open. Never NULL. */
const char *kr_media_reader_error(const kr_media_reader_t *r);
void kr_media_reader_destroy(kr_media_reader_t *r); /* NULL-safe */

typedef struct kr_media_writer kr_media_writer_t; /* opaque */

/* Writer options. Defaults (kr_media_writer_config_default) noted per field. */
typedef struct kr_media_writer_config {
    int         crf;       /* x264 constant rate factor 0..51, lower = better. Default 20 */
    const char *preset;    /* x264 preset name; borrowed only during create. Default "veryfast" */
    int         gop_s10;   /* keyframe interval in tenths of a second (short GOP = fast seeks).
                              Default 20 (2 s) */
    int         bframes;   /* B-frames (pictures predicted from both sides, coded after the
                              later one) between references, 0..16; -1: the preset's (3 for
                              veryfast). 0 as most phones record. Default -1 */
    int         threads;   /* encoder threads; 0 = automatic. Default 0 */
} kr_media_writer_config;
void kr_media_writer_config_default(kr_media_writer_config *cfg); /* fills caller's *cfg */

/* Creates an H.264 (libx264, yuv420p, +faststart) MP4 writer for w x h frames (both even)
 * at nominal rate fps_num/fps_den (frames/s; sets the stream's frame rate and the
 * duration of the last frame; actual times come from each write's t_us). crf as in
 * kr_media_writer_config (values < 0 mean the default). Frames go to a temporary
 * "<path>.tmp.<pid>.mp4" that kr_media_writer_close() renames to path.
 * *out owned by the caller (kr_media_writer_destroy). On failure *out is NULL and
 * kr_media_writer_error(NULL) has a one-line message (e.g. unwritable folder: KR_ERR_IO). */
kr_status kr_media_writer_create(const char *path, int w, int h, int fps_num, int fps_den,
                                 int crf, kr_media_writer_t **out);
/* Same with options; cfg copied (NULL = defaults). */
kr_status kr_media_writer_create2(const char *path, int w, int h, int fps_num, int fps_den,
                                  const kr_media_writer_config *cfg, kr_media_writer_t **out);
/* Encodes one frame. img: w x h, 3-channel BGR or 1-channel grey (borrowed, copied).
 * t_us: its presentation time in microseconds, strictly greater than the previous one
 * (variable frame rate is fine). The first frame's t_us is the file's time origin. */
kr_status kr_media_writer_write(kr_media_writer_t *w, const kr_image_t *img, int64_t t_us);
/* Same for a planar 4:2:0 picture (yuv: w x h views, borrowed, copied; e.g. a decoded
 * frame drawn on): no colour conversion when its colours are the file's (BT.709, limited
 * range: what kr_media_writer_create tags), else converted to them (through BGR, as the
 * reader makes it: matrix and range). Frames given to write and write_yuv may be mixed.
 * Same times and errors as kr_media_writer_write. */
kr_status kr_media_writer_write_yuv(kr_media_writer_t *w, const kr_yuv_t *yuv, int64_t t_us);
/* Flushes the encoder, writes the trailer (moov moved to the front), renames to path.
 * On failure the temporary is removed. Call once; then destroy. */
kr_status kr_media_writer_close(kr_media_writer_t *w);
/* Last error text of w; w == NULL: the calling thread's last failed create. Never NULL. */
const char *kr_media_writer_error(const kr_media_writer_t *w);
/* NULL-safe; if not closed, removes the temporary so no partial file is left. */
void kr_media_writer_destroy(kr_media_writer_t *w);

#ifdef __cplusplus
}
#endif
#endif /* KR_MEDIA_H */
