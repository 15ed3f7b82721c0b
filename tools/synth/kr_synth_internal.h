/* kr_synth_internal.h - karuta-synth internals shared between its source files:
 * scenario model, hand paths, card motion, camera, renderer state.
 * SPDX-License-Identifier: MIT                                                   */
#ifndef KR_SYNTH_INTERNAL_H
#define KR_SYNTH_INTERNAL_H
#include "kr_synth.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define KR_PI 3.14159265358979323846
#define KR_SYNTH_MAX_READINGS 120
#define KR_SYNTH_MAX_ACTIONS  400
#define KR_SYNTH_MAX_KEYS     1200
#define KR_SYNTH_MAX_EVENTS   4000
#define KR_SYNTH_MAX_SEGS     16   /* motion segments per card */
#define KR_SYNTH_N_HANDS      4    /* A-left, A-right, B-left, B-right */
#define KR_SYNTH_FOOT_N       6    /* footprint points per hand */

/* Field (geometry.md) */
#define KR_FIELD_HALF_W 435.0
#define KR_FIELD_HALF_H 254.0
#define KR_CARD_H 73.0   /* along the owner's up direction */
#define KR_CARD_W 52.0

/* ---- PRNG: splitmix64 streams (never time-seeded) ---- */
typedef struct { uint64_t s; } kr_synth_rng;
void     kr_synth_rng_seed(kr_synth_rng *r, uint64_t seed, uint64_t stream);
uint64_t kr_synth_rng_u64(kr_synth_rng *r);
double   kr_synth_rng_uniform(kr_synth_rng *r);           /* [0,1) */
double   kr_synth_rng_range(kr_synth_rng *r, double a, double b);
double   kr_synth_rng_gauss(kr_synth_rng *r);

/* ---- poems ---- */
typedef struct kr_synth_poem {
    int  no;
    int  kami[40];        /* code points of the upper verse */
    int  kami_n;
    int  kami_norm[40];   /* compared by sound: う after お read as お */
    char lines[3][64];    /* torifuda_lines (UTF-8) */
    int  n_lines;
    char kimariji0[32];   /* opening kimariji from the data (UTF-8), for checks */
} kr_synth_poem;
kr_status kr_synth_poems_load(const char *path, kr_synth_poem poems[101], char *err, size_t errlen);
/* Length in kana of card's kimariji against the unread set (unread[c] true). */
int kr_synth_kimariji_len(const kr_synth_poem poems[101], int card, const bool unread[101]);

/* ---- scene model ---- */
typedef struct kr_synth_pose { double x, y, a; } kr_synth_pose; /* mm, mm, rad (0 = upright for A) */

typedef enum { KR_CARD_REST, KR_CARD_SLIDE, KR_CARD_CARRY } kr_card_mode;
typedef struct kr_synth_seg {       /* one motion segment of a card, from t0 */
    kr_card_mode mode;
    double t0;                      /* s */
    kr_synth_pose p0;               /* pose at t0 (rest pose for REST) */
    double vx, vy, w;               /* SLIDE: mm/s, mm/s, rad/s at t0 */
    double decel;                   /* SLIDE: mm/s^2 */
    int    hand;                    /* CARRY: hand index; pose follows hand */
    double ox, oy, oa;              /* CARRY: offset in the hand frame at grab */
    double a_to;                    /* CARRY: final angle at release (rad) */
    double t_rel;                   /* CARRY: release time */
    int    player;                  /* SLIDE: pusher */
} kr_synth_seg;

typedef struct kr_synth_card {
    int  id;
    int  owner;          /* 0 A, 1 B at layout time */
    int  row;            /* 0 upper, 1 middle, 2 lower */
    kr_synth_pose pose0; /* true layout pose */
    kr_synth_seg seg[KR_SYNTH_MAX_SEGS];
    int  n_seg;
    bool out_reported;
    double tint;         /* paper shade factor */
} kr_synth_card;

/* Hand path: Hermite keys with explicit velocity; z = height above mat (mm). */
typedef struct kr_synth_key {
    double t;            /* s */
    double x, y, z;      /* fingertip (middle finger tip), mm */
    double vx, vy, vz;   /* mm/s */
} kr_synth_key;

typedef struct kr_synth_hand {
    bool   used;
    int    player, side;      /* side: 0 left, 1 right */
    kr_synth_key key[KR_SYNTH_MAX_KEYS];
    int    n_key;
    double shoulder[3];       /* mm (x, y, z) */
    double ready[3];          /* rest / guard position of the fingertip */
    double length;            /* scale factor of the hand model */
} kr_synth_hand;

typedef enum {
    KR_ACT_SWEEP, KR_ACT_PRESS, KR_ACT_HOVER, KR_ACT_SEND, KR_ACT_REARRANGE,
    KR_ACT_ENTER, KR_ACT_PATH, KR_ACT_REMOVE
} kr_act_kind;

typedef struct kr_synth_action {
    kr_act_kind kind;
    int    reading;          /* index into readings, -1 = absolute time */
    int    player, side;
    int    card;             /* target card id (0 none) */
    double tx, ty;           /* target point (mm) if no card, or offset on card */
    bool   has_point;
    double t;                /* absolute contact / arrival time (s) */
    double speed;            /* sweep speed, mm/s */
    double dir;              /* sweep direction (rad, mat frame), NAN = auto */
    double to_x, to_y;       /* send / rearrange destination centre */
    double hover;            /* hover height mm */
    double hold;             /* press hold s */
    double approach;         /* s from leaving guard to contact */
    bool   exact;            /* shift the path so the first contact is exactly t */
    int    n_path;           /* KR_ACT_PATH: keys given as [t,x,y,z] */
    double path[32][4];
    bool   play;             /* counts for settle */
    double t_end;            /* time of the action's last key (s) */
    double follow;           /* sweep: mm the hand slides on after landing */
    double land;             /* press: mm/s the hand still comes down at on contact (0: it slows to rest on the card) */
} kr_synth_action;

typedef struct kr_synth_reading {
    int    card;
    double kami, kim, shimo; /* s */
    int    kim_len, kami_len;
    double void_t;           /* NAN = none */
    double settle;           /* NAN = auto */
    bool   settle_given;
} kr_synth_reading;

/* Camera: pinhole + OpenCV radial distortion (k1, k2). */
typedef struct kr_synth_camera {
    double K[9];              /* fx 0 cx; 0 fy cy; 0 0 1 */
    double k1, k2;
    double R[9];              /* world -> camera rotation */
    double C[3];              /* camera centre (mat mm; z = height) */
    double H[9];              /* mat mm (z=0) -> undistorted px */
    double Hinv[9];
    int    w, h;
} kr_synth_camera;
void kr_synth_cam_build(kr_synth_camera *c, int w, int h, double height_mm, double view_mm,
                        double cx_mm, double cy_mm, double tilt_deg, double pan_deg,
                        double roll_deg, double k1, double k2, double ppx, double ppy);
/* 3D mat point -> distorted pixel. */
void kr_synth_cam_project(const kr_synth_camera *c, double x, double y, double z, double px[2]);
/* distorted pixel -> mat plane point (z = 0). Returns false if the ray misses. */
bool kr_synth_cam_unproject(const kr_synth_camera *c, double u, double v, double mm[2]);
/* the mat-plane point seen in the same pixel as 3D point (x, y, z). */
void kr_synth_cam_proxy(const kr_synth_camera *c, double x, double y, double z, double out[2]);

typedef struct kr_synth_look {
    double vignette, noise, flicker, flicker_hz, exposure, blur;
    int    flicker_square;     /* 1: the lamps switch (LED drivers, PWM dimmers): a square wave
                                  of duty 0.5, averaged over each row's exposure; 0: a sine */
    double wb[3];              /* white balance gains B, G, R */
    double tatami_bgr[3];      /* base colour */
    double tatami_var;         /* colour variation amplitude */
    double strand_pitch;       /* mm */
    double strand_angle;       /* rad (0 = strands along x) */
    double light_dir[2];       /* shadow offset per mm of height */
    double shadow;             /* shadow strength at contact (0..1) */
    int    font;               /* 0 mincho, 1 gothic, 2 noto serif, 3 noto sans */
    double card_bgr[3];
    double border_bgr[3];
    int    crf;
    int    gop_s10;            /* keyframe interval in tenths of a second */
    int    bframes;            /* B-frames between references; -1 the encoder preset's */
    double shutter;            /* exposure time as a fraction of the frame period */
    double readout;            /* rolling shutter: row readout time as a fraction of the frame
                                  period (0: global shutter); kr_synth_render.c */
    bool   bodies;             /* draw the players' laps (hakama) at the image edges */
} kr_synth_look;

typedef struct kr_synth_player {
    char    name[64];
    int     hand;              /* valid (playing) hand side */
    double  skin[3];           /* BGR */
    double  sleeve[3];         /* BGR */
    double  size;              /* hand scale */
} kr_synth_player;

typedef struct kr_synth_render kr_synth_render; /* kr_synth_render.c */

/* the frame period (s) at time t: the scenario's, or the slow-motion ramp's (frame_ramp) */
double kr_synth_period_at(const kr_synth_t *s, double t);

struct kr_synth {
    char   path[512];
    char   name[128];
    char   description[512];
    bool   holdout;
    uint64_t seed;
    uint64_t look_seed;        /* skins, sleeves, camera, look, texture, noise (--look-seed; default seed) */
    int    w, h, fps_num, fps_den;
    int    n_frames;
    int64_t *frame_t;          /* owned: each frame's presentation time (us), n_frames of them */
    double frame_jitter;       /* share of a period each frame's time may move (uniform, +-) */
    double frame_drop;         /* share of the frames left out */
    double ramp_from, ramp_to; /* s: frames at ramp_fps from .. to (frame_ramp); ramp_fps 0: none */
    double ramp_fps, ramp_ease;/* ... the rate eases from the scenario's to it over ramp_ease s */
    double duration;           /* s */
    double mora;               /* s */
    kr_synth_poem poems[101];
    kr_synth_player players[2];
    kr_synth_card cards[101];  /* by id; cards[id].id == 0 if absent */
    int    card_ids[100];
    int    n_cards;
    kr_synth_reading readings[KR_SYNTH_MAX_READINGS];
    int    n_readings;
    kr_synth_action actions[KR_SYNTH_MAX_ACTIONS];
    int    n_actions;
    kr_synth_hand hands[KR_SYNTH_N_HANDS];   /* index player*2 + side */
    kr_synth_event events[KR_SYNTH_MAX_EVENTS];
    int    n_events;
    kr_synth_camera cam;
    kr_synth_look look;
    kr_synth_render *render;
};

/* scenario (kr_synth_scenario.c) */
kr_status kr_synth_scenario_parse(kr_synth_t *s, const char *path, const kr_synth_opts *o,
                                  char *err, size_t errlen);
/* simulation (kr_synth_sim.c) */
kr_status kr_synth_sim_run(kr_synth_t *s, char *err, size_t errlen);
void kr_synth_hand_eval(const kr_synth_hand *hd, double t, double p[3], double v[3]);
bool kr_synth_hand_visible(const kr_synth_hand *hd, double t);
/* in-plane direction the fingers point (unit vector) */
void kr_synth_hand_dir(const kr_synth_hand *hd, const double p[3], const double v[3], double d[2]);
/* card pose at time t; returns mode; *carry_z height if carried */
kr_card_mode kr_synth_card_pose(const kr_synth_t *s, const kr_synth_card *c, double t,
                                kr_synth_pose *p, double *z);
void kr_synth_card_corners(const kr_synth_pose *p, double mm[8]);
/* footprint points (mm) of a hand whose fingertip is p, pointing d */
void kr_synth_footprint(const kr_synth_hand *hd, const double p[3], const double d[2],
                        double fp[KR_SYNTH_FOOT_N][2]);

/* rendering (kr_synth_render.c) */
kr_status kr_synth_render_init(kr_synth_t *s, char *err, size_t errlen);
void      kr_synth_render_free(kr_synth_render *r);
kr_status kr_synth_render_do(kr_synth_t *s, int frame, kr_image_t *out);
double    kr_synth_frame_gain(const kr_synth_t *s, int frame);
double    kr_synth_gain_at(const kr_synth_t *s, double t); /* exposure gain at time t (s) */
/* rolling shutter: the bands of rows rendered at one time each (1 without a readout) */
int       kr_synth_readout_bands(const kr_synth_t *s, double readout_s);

/* font (kr_synth_font.c): renders card text into an 8-bit coverage image */
typedef struct kr_synth_font kr_synth_font;
kr_status kr_synth_font_open(int which, kr_synth_font **out, char *err, size_t errlen);
void      kr_synth_font_close(kr_synth_font *f);
/* draws the card's lines as vertical columns (right to left) into cov (w x h, upright). */
kr_status kr_synth_font_card(kr_synth_font *f, const kr_synth_poem *p, uint8_t *cov, int w, int h,
                             double px_per_mm);

/* utf-8 helpers */
int kr_synth_utf8_decode(const char *s, int *cp, int max);

#endif /* KR_SYNTH_INTERNAL_H */
