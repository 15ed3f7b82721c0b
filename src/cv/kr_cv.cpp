/* kr_cv.cpp - the project's single OpenCV translation unit (see kr_cv.h).
 * Every extern "C" body catches all exceptions; nothing C++ escapes.
 * SPDX-License-Identifier: MIT */
#include "kr_cv.h"

#include "kr_cv_internal.h"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/calib3d.hpp>
#include <opencv2/aruco/charuco.hpp>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>
#include <cmath>

static thread_local char cv_error[512];

static void set_error(const char *what)
{
    std::snprintf(cv_error, sizeof cv_error, "%s", what ? what : "unknown OpenCV error");
}

#define KR_CV_TRY try {
#define KR_CV_CATCH                                                   \
    }                                                                 \
    catch (const cv::Exception &e) { set_error(e.what()); return KR_ERR_CV; } \
    catch (const std::bad_alloc &) { set_error("out of memory"); return KR_ERR_NOMEM; } \
    catch (...) { set_error("unexpected C++ exception"); return KR_ERR_CV; }

static cv::Mat view(const kr_image_t *img)
{
    int type = img->channels == 3 ? CV_8UC3 : CV_8UC1;
    return cv::Mat(img->h, img->w, type, img->px, (size_t)img->stride);
}

extern "C" const char *kr_cv_last_error(void) { return cv_error; }

extern "C" void kr_cv_set_error_(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(cv_error, sizeof cv_error, fmt, ap);
    va_end(ap);
}

/* ---- general ---------------------------------------------------------- */
/* (kr_cv_write_image / kr_cv_read_image: kr_cv_image.c, libpng and libjpeg: OpenCV's
 * imgcodecs is not linked) */

/* The one resize: area averaging when shrinking unless linear, bilinear otherwise;
 * a channel change goes through a reused per-thread buffer. */
static kr_status resize_impl(const kr_image_t *src, kr_image_t *dst, bool linear)
{
    KR_CV_TRY
    if (!src || !dst || !src->px || !dst->px || src->w <= 0 || src->h <= 0 || dst->w <= 0 || dst->h <= 0)
        return KR_ERR_INVALID;
    cv::Mat s = view(src), d = view(dst);
    int interp = (!linear && dst->w < src->w) ? cv::INTER_AREA : cv::INTER_LINEAR;
    if (src->channels == dst->channels) {
        cv::resize(s, d, d.size(), 0, 0, interp);
    } else {
        static thread_local cv::Mat tmp; /* reused: no allocation once sized */
        cv::resize(s, tmp, d.size(), 0, 0, interp);
        cv::cvtColor(tmp, d, src->channels == 3 ? cv::COLOR_BGR2GRAY : cv::COLOR_GRAY2BGR);
    }
    return KR_OK;
    KR_CV_CATCH
}

extern "C" kr_status kr_cv_resize(const kr_image_t *src, kr_image_t *dst)
{
    return resize_impl(src, dst, false);
}

extern "C" kr_status kr_cv_resize_linear(const kr_image_t *src, kr_image_t *dst)
{
    if (src && dst && src->channels != dst->channels)
        return KR_ERR_INVALID;
    return resize_impl(src, dst, true);
}

/* ---- synth (rendering helpers) ---------------------------------------- */
struct kr_cv_synth_remap {
    cv::Mat m1, m2; /* fixed-point maps (CV_16SC2 + CV_16UC1) */
};

extern "C" kr_status kr_cv_synth_remap_create(const float *map_x, const float *map_y, int w, int h,
                                              kr_cv_synth_remap_t **out)
{
    *out = NULL;
    KR_CV_TRY
    if (!map_x || !map_y || w <= 0 || h <= 0)
        return KR_ERR_INVALID;
    kr_cv_synth_remap_t *m = new kr_cv_synth_remap_t();
    cv::Mat mx(h, w, CV_32FC1, const_cast<float *>(map_x));
    cv::Mat my(h, w, CV_32FC1, const_cast<float *>(map_y));
    try {
        cv::convertMaps(mx, my, m->m1, m->m2, CV_16SC2, false);
    } catch (...) {
        delete m;
        throw;
    }
    *out = m;
    return KR_OK;
    KR_CV_CATCH
}

extern "C" void kr_cv_synth_remap_destroy(kr_cv_synth_remap_t *m)
{
    delete m;
}

extern "C" kr_status kr_cv_synth_remap(const kr_cv_synth_remap_t *m, const kr_image_t *src, kr_image_t *dst,
                                       const uint8_t border[3])
{
    KR_CV_TRY
    if (!m || !src || !dst || src->channels != dst->channels || dst->w != m->m1.cols || dst->h != m->m1.rows)
        return KR_ERR_INVALID;
    cv::Mat d = view(dst);
    cv::remap(view(src), d, m->m1, m->m2, cv::INTER_LINEAR, cv::BORDER_CONSTANT,
              cv::Scalar(border[0], border[1], border[2]));
    return KR_OK;
    KR_CV_CATCH
}

extern "C" kr_status kr_cv_synth_remap_rows(const kr_cv_synth_remap_t *m, const kr_image_t *src, kr_image_t *dst,
                                            int y0, int y1, const uint8_t border[3])
{
    KR_CV_TRY
    if (!m || !src || !dst || src->channels != dst->channels || dst->w != m->m1.cols || dst->h != m->m1.rows ||
        y0 < 0 || y1 > dst->h || y0 >= y1)
        return KR_ERR_INVALID;
    /* fixed-point maps: every output pixel depends on its own map entry only, so a row
     * range of maps and dst gives exactly those rows of the whole-image remap */
    cv::Mat d = view(dst).rowRange(y0, y1);
    cv::remap(view(src), d, m->m1.rowRange(y0, y1), m->m2.rowRange(y0, y1), cv::INTER_LINEAR,
              cv::BORDER_CONSTANT, cv::Scalar(border[0], border[1], border[2]));
    return KR_OK;
    KR_CV_CATCH
}

extern "C" kr_status kr_cv_synth_fill_polys(kr_image_t *img, const double *xy, const int *counts, int n_poly,
                                            double ox, double oy, const uint8_t color[3])
{
    KR_CV_TRY
    if (!img || !xy || !counts || n_poly < 0)
        return KR_ERR_INVALID;
    cv::Mat m = view(img);
    const int shift = 4;
    std::vector<std::vector<cv::Point>> polys((size_t)n_poly);
    size_t k = 0;
    for (int p = 0; p < n_poly; p++) {
        polys[(size_t)p].resize((size_t)counts[p]);
        for (int i = 0; i < counts[p]; i++, k++)
            polys[(size_t)p][(size_t)i] = cv::Point((int)std::lround((xy[2 * k] - ox) * 16.0),
                                                    (int)std::lround((xy[2 * k + 1] - oy) * 16.0));
    }
    cv::fillPoly(m, polys, cv::Scalar(color[0], color[1], color[2]), cv::LINE_AA, shift);
    return KR_OK;
    KR_CV_CATCH
}

extern "C" kr_status kr_cv_synth_blur(kr_image_t *img, double sigma)
{
    KR_CV_TRY
    if (!img)
        return KR_ERR_INVALID;
    if (sigma <= 0)
        return KR_OK;
    cv::Mat m = view(img);
    if (sigma < 2.0) {
        cv::GaussianBlur(m, m, cv::Size(0, 0), sigma, sigma, cv::BORDER_REPLICATE);
    } else {
        /* two box passes have the Gaussian's variance: (w^2 - 1) / 6 = sigma^2; cost
         * independent of sigma (the soft shadows need large sigmas every frame) */
        int w = (int)std::lround(std::sqrt(6.0 * sigma * sigma + 1.0));
        w |= 1;
        cv::blur(m, m, cv::Size(w, w), cv::Point(-1, -1), cv::BORDER_REPLICATE);
        cv::blur(m, m, cv::Size(w, w), cv::Point(-1, -1), cv::BORDER_REPLICATE);
    }
    return KR_OK;
    KR_CV_CATCH
}


/* ---- calib ------------------------------------------------------------ */
extern "C" kr_status kr_cv_calib_grey(const kr_image_t *src, kr_image_t *dst)
{
    KR_CV_TRY
    if (!src || !dst || !src->px || !dst->px || dst->channels != 1 || dst->w != src->w ||
        dst->h != src->h || (src->channels != 1 && src->channels != 3))
        return KR_ERR_INVALID;
    cv::Mat s = view(src), d = view(dst);
    if (src->channels == 3)
        cv::cvtColor(s, d, cv::COLOR_BGR2GRAY);
    else
        s.copyTo(d);
    return KR_OK;
    KR_CV_CATCH
}

extern "C" kr_status kr_cv_calib_find_quads(const kr_image_t *grey, const kr_cv_quad_params *p,
                                            double *quads, int max, int *n)
{
    KR_CV_TRY
    if (!grey || !grey->px || grey->channels != 1 || !p || !quads || max < 0 || !n)
        return KR_ERR_INVALID;
    *n = 0;
    /* no smoothing first: it would fill the one- or two-pixel dark gaps between cards
     * laid edge to edge; the opening below removes the noise instead */
    cv::Mat g = view(grey), bin;
    int block = p->block_px < 3 ? 3 : (p->block_px | 1);
    cv::adaptiveThreshold(g, bin, 255, cv::ADAPTIVE_THRESH_MEAN_C, cv::THRESH_BINARY, block,
                          -p->offset);
    /* opening cuts thin bright texture bridging cards (no closing: it would bridge the
     * few-pixel gaps between neighbouring cards; text holes do not matter to outer contours) */
    cv::Mat k3 = cv::getStructuringElement(cv::MORPH_RECT, cv::Size(3, 3));
    cv::morphologyEx(bin, bin, cv::MORPH_OPEN, k3);
    std::vector<std::vector<cv::Point>> contours;
    cv::findContours(bin, contours, cv::RETR_EXTERNAL, cv::CHAIN_APPROX_SIMPLE);
    for (const auto &ct : contours) {
        if (*n >= max)
            break;
        double area = cv::contourArea(ct);
        if (area < p->min_area_px || area > 8 * p->max_area_px)
            continue;
        cv::RotatedRect rr = cv::minAreaRect(ct);
        double lw = std::max(rr.size.width, rr.size.height), sw = std::min(rr.size.width, rr.size.height);
        if (sw < 2 || lw / sw < p->min_aspect || lw / sw > std::max(p->max_aspect, p->max_strip_aspect))
            continue;
        if (lw / sw <= p->max_aspect && area > p->max_area_px)
            continue;
        if (area < p->min_fill * (double)rr.size.area())
            continue;
        std::vector<cv::Point> hull, poly;
        cv::convexHull(ct, hull);
        double per = cv::arcLength(hull, true);
        cv::approxPolyDP(hull, poly, 0.04 * per, true);
        double *q = quads + 8 * (size_t)*n;
        if (poly.size() == 4 && cv::isContourConvex(poly)) {
            for (int j = 0; j < 4; j++) {
                q[2 * j] = poly[(size_t)j].x;
                q[2 * j + 1] = poly[(size_t)j].y;
            }
        } else {
            cv::Point2f pts[4];
            rr.points(pts);
            for (int j = 0; j < 4; j++) {
                q[2 * j] = pts[j].x;
                q[2 * j + 1] = pts[j].y;
            }
        }
        (*n)++;
    }
    return KR_OK;
    KR_CV_CATCH
}

extern "C" kr_status kr_cv_calib_polyline(kr_image_t *img, const double *xy, int n, int closed,
                                          const uint8_t bgr[3], int thickness)
{
    KR_CV_TRY
    if (!img || !img->px || img->channels != 3 || !xy || n < 2 || !bgr)
        return KR_ERR_INVALID;
    cv::Mat m = view(img);
    std::vector<cv::Point> pts((size_t)n);
    for (int i = 0; i < n; i++)
        pts[(size_t)i] = cv::Point((int)std::lround(xy[2 * i] * 16), (int)std::lround(xy[2 * i + 1] * 16));
    cv::polylines(m, pts, closed != 0, cv::Scalar(bgr[0], bgr[1], bgr[2]), thickness, cv::LINE_AA, 4);
    return KR_OK;
    KR_CV_CATCH
}

extern "C" kr_status kr_cv_calib_text(kr_image_t *img, double x, double y, const char *text,
                                      double scale, const uint8_t bgr[3])
{
    KR_CV_TRY
    if (!img || !img->px || img->channels != 3 || !text || !bgr)
        return KR_ERR_INVALID;
    cv::Mat m = view(img);
    cv::Point at((int)std::lround(x), (int)std::lround(y));
    int th = scale > 1.2 ? 2 : 1;
    cv::putText(m, text, at, cv::FONT_HERSHEY_SIMPLEX, scale, cv::Scalar(0, 0, 0), th + 2, cv::LINE_AA);
    cv::putText(m, text, at, cv::FONT_HERSHEY_SIMPLEX, scale, cv::Scalar(bgr[0], bgr[1], bgr[2]), th,
                cv::LINE_AA);
    return KR_OK;
    KR_CV_CATCH
}

extern "C" kr_status kr_cv_calib_remap_tables(const float *map_x, const float *map_y, int w, int h,
                                              int16_t *xy, uint16_t *frac)
{
    KR_CV_TRY
    if (!map_x || !map_y || !xy || !frac || w <= 0 || h <= 0)
        return KR_ERR_INVALID;
    cv::Mat mx(h, w, CV_32FC1, (void *)map_x), my(h, w, CV_32FC1, (void *)map_y);
    cv::Mat oxy(h, w, CV_16SC2, xy), ofr(h, w, CV_16UC1, frac);
    cv::Mat txy, tfr;
    cv::convertMaps(mx, my, txy, tfr, CV_16SC2, false);
    txy.copyTo(oxy);
    tfr.copyTo(ofr);
    return KR_OK;
    KR_CV_CATCH
}

extern "C" kr_status kr_cv_calib_remap(const kr_image_t *src, const int16_t *xy, const uint16_t *frac,
                                       kr_image_t *dst)
{
    KR_CV_TRY
    if (!src || !dst || !src->px || !dst->px || !xy || !frac || src->channels != dst->channels)
        return KR_ERR_INVALID;
    cv::Mat s = view(src), d = view(dst);
    cv::Mat mxy(dst->h, dst->w, CV_16SC2, (void *)xy), mfr(dst->h, dst->w, CV_16UC1, (void *)frac);
    cv::remap(s, d, mxy, mfr, cv::INTER_LINEAR, cv::BORDER_CONSTANT, cv::Scalar::all(0));
    return KR_OK;
    KR_CV_CATCH
}


static cv::Ptr<cv::aruco::CharucoBoard> charuco_board(const kr_cv_charuco *b)
{
    cv::Ptr<cv::aruco::Dictionary> dict = cv::aruco::getPredefinedDictionary(cv::aruco::DICT_5X5_100);
    return cv::aruco::CharucoBoard::create(b->squares_x, b->squares_y, (float)b->square_mm,
                                           (float)b->marker_mm, dict);
}

static int charuco_ok(const kr_cv_charuco *b)
{
    return b && b->squares_x >= 3 && b->squares_y >= 3 && b->squares_x * b->squares_y / 2 <= 100 &&
           b->square_mm > 0 && b->marker_mm > 0 && b->marker_mm < b->square_mm;
}

extern "C" kr_status kr_cv_calib_charuco_draw(const kr_cv_charuco *b, double px_per_mm, double margin_mm,
                                              kr_image_t *out, uint8_t **px)
{
    KR_CV_TRY
    *px = NULL;
    if (!charuco_ok(b) || !(px_per_mm > 0) || margin_mm < 0)
        return KR_ERR_INVALID;
    int m = (int)std::lround(margin_mm * px_per_mm);
    int w = (int)std::lround(b->squares_x * b->square_mm * px_per_mm) + 2 * m;
    int h = (int)std::lround(b->squares_y * b->square_mm * px_per_mm) + 2 * m;
    cv::Mat img;
    charuco_board(b)->draw(cv::Size(w, h), img, m, 1);
    uint8_t *buf = (uint8_t *)std::malloc((size_t)w * (size_t)h);
    if (!buf)
        return KR_ERR_NOMEM;
    for (int y = 0; y < h; y++)
        std::memcpy(buf + (size_t)y * w, img.ptr(y), (size_t)w);
    out->w = w; out->h = h; out->stride = w; out->channels = 1; out->px = buf;
    *px = buf;
    return KR_OK;
    KR_CV_CATCH
}

extern "C" kr_status kr_cv_calib_charuco_detect(const kr_cv_charuco *b, const kr_image_t *img, int *ids,
                                                double *xy, int max, int *n)
{
    KR_CV_TRY
    if (!charuco_ok(b) || !img || !img->px || !ids || !xy || !n || max < 0)
        return KR_ERR_INVALID;
    *n = 0;
    cv::Ptr<cv::aruco::CharucoBoard> board = charuco_board(b);
    cv::Mat m = view(img);
    std::vector<std::vector<cv::Point2f>> corners;
    std::vector<int> mids;
    cv::aruco::detectMarkers(m, board->dictionary, corners, mids);
    if (mids.size() < 2)
        return KR_OK;
    std::vector<cv::Point2f> cc;
    std::vector<int> cids;
    cv::aruco::interpolateCornersCharuco(corners, mids, m, board, cc, cids);
    for (size_t i = 0; i < cids.size() && *n < max; i++) {
        ids[*n] = cids[i];
        xy[2 * *n] = cc[i].x;
        xy[2 * *n + 1] = cc[i].y;
        (*n)++;
    }
    return KR_OK;
    KR_CV_CATCH
}

extern "C" kr_status kr_cv_calib_camera(int n_views, const int *counts, const double *obj, const double *img,
                                        int w, int h, double K[9], double dist[5], double *rms_px)
{
    KR_CV_TRY
    if (n_views < 1 || !counts || !obj || !img || w <= 0 || h <= 0)
        return KR_ERR_INVALID;
    std::vector<std::vector<cv::Point3f>> o((size_t)n_views);
    std::vector<std::vector<cv::Point2f>> p((size_t)n_views);
    size_t k = 0;
    for (int v = 0; v < n_views; v++)
        for (int i = 0; i < counts[v]; i++, k++) {
            o[(size_t)v].push_back(cv::Point3f((float)obj[2 * k], (float)obj[2 * k + 1], 0.f));
            p[(size_t)v].push_back(cv::Point2f((float)img[2 * k], (float)img[2 * k + 1]));
        }
    cv::Mat cam, dc;
    std::vector<cv::Mat> rv, tv;
    double rms = cv::calibrateCamera(o, p, cv::Size(w, h), cam, dc, rv, tv);
    for (int i = 0; i < 9; i++)
        K[i] = cam.at<double>(i / 3, i % 3);
    for (int i = 0; i < 5; i++)
        dist[i] = i < (int)dc.total() ? dc.at<double>(i) : 0.0;
    *rms_px = rms;
    return KR_OK;
    KR_CV_CATCH
}

/* ---- track ------------------------------------------------------------ */
extern "C" kr_status kr_cv_track_polyline(kr_image_t *img, const double *xy, int n_pts, int closed,
                                          uint8_t b, uint8_t g, uint8_t r, int thickness)
{
    KR_CV_TRY
    if (!img || !img->px || !xy || n_pts < 2)
        return KR_ERR_INVALID;
    cv::Mat m = view(img);
    std::vector<cv::Point> pts((size_t)n_pts);
    for (int i = 0; i < n_pts; i++)
        pts[(size_t)i] = cv::Point((int)std::lround(xy[2 * i] * 16), (int)std::lround(xy[2 * i + 1] * 16));
    cv::polylines(m, pts, closed != 0, cv::Scalar(b, g, r), thickness, cv::LINE_AA, 4);
    return KR_OK;
    KR_CV_CATCH
}

extern "C" kr_status kr_cv_track_circle(kr_image_t *img, double x, double y, double radius,
                                        uint8_t b, uint8_t g, uint8_t r, int thickness)
{
    KR_CV_TRY
    if (!img || !img->px)
        return KR_ERR_INVALID;
    cv::Mat m = view(img);
    cv::circle(m, cv::Point((int)std::lround(x * 16), (int)std::lround(y * 16)), (int)std::lround(radius * 16),
               cv::Scalar(b, g, r), thickness < 0 ? cv::FILLED : thickness, cv::LINE_AA, 4);
    return KR_OK;
    KR_CV_CATCH
}

extern "C" kr_status kr_cv_track_text(kr_image_t *img, double x, double y, const char *text, double scale,
                                      uint8_t b, uint8_t g, uint8_t r)
{
    KR_CV_TRY
    if (!img || !img->px || !text)
        return KR_ERR_INVALID;
    cv::Mat m = view(img);
    cv::putText(m, text, cv::Point((int)std::lround(x), (int)std::lround(y)), cv::FONT_HERSHEY_SIMPLEX, scale,
                cv::Scalar(b, g, r), 1, cv::LINE_AA);
    return KR_OK;
    KR_CV_CATCH
}

extern "C" kr_status kr_cv_track_upscale(const kr_image_t *src, kr_image_t *dst, int factor)
{
    KR_CV_TRY
    if (!src || !dst || !src->px || !dst->px || factor < 1 || dst->w != src->w * factor ||
        dst->h != src->h * factor || dst->channels != src->channels)
        return KR_ERR_INVALID;
    cv::Mat s = view(src), d = view(dst);
    cv::resize(s, d, d.size(), 0, 0, cv::INTER_NEAREST);
    return KR_OK;
    KR_CV_CATCH
}

/* ---- draw (overlays) -------------------------------------------------- */
static const int draw_shift = 4; /* 1/16 px sub-pixel precision */

static cv::Scalar draw_color(const kr_image_t *img, const uint8_t bgr[3])
{
    if (img->channels == 1)
        return cv::Scalar(0.114 * bgr[0] + 0.587 * bgr[1] + 0.299 * bgr[2]);
    return cv::Scalar(bgr[0], bgr[1], bgr[2]);
}

static bool draw_ok(const kr_image_t *img)
{
    return img && img->px && img->w > 0 && img->h > 0 && (img->channels == 1 || img->channels == 3);
}

static cv::Point draw_pt(double x, double y)
{
    const double k = (double)(1 << draw_shift);
    /* clamp far-away points so the fixed-point coordinates cannot overflow */
    x = std::fmax(-1e6, std::fmin(1e6, x));
    y = std::fmax(-1e6, std::fmin(1e6, y));
    return cv::Point((int)std::lround(x * k), (int)std::lround(y * k));
}

extern "C" kr_status kr_cv_draw_line(kr_image_t *img, double x0, double y0, double x1, double y1,
                                     const uint8_t bgr[3], int thickness)
{
    KR_CV_TRY
    if (!draw_ok(img) || !bgr || thickness < 1)
        return KR_ERR_INVALID;
    cv::Mat m = view(img);
    cv::line(m, draw_pt(x0, y0), draw_pt(x1, y1), draw_color(img, bgr), thickness, cv::LINE_AA, draw_shift);
    return KR_OK;
    KR_CV_CATCH
}

extern "C" kr_status kr_cv_draw_polyline(kr_image_t *img, const double *xy, int n, int closed,
                                         const uint8_t bgr[3], int thickness)
{
    KR_CV_TRY
    if (!draw_ok(img) || !bgr || !xy || n < 2 || thickness < 1)
        return KR_ERR_INVALID;
    static thread_local std::vector<cv::Point> pts;
    pts.clear();
    for (int i = 0; i < n; i++)
        pts.push_back(draw_pt(xy[2 * i], xy[2 * i + 1]));
    const cv::Point *pp = pts.data();
    cv::Mat m = view(img);
    cv::polylines(m, &pp, &n, 1, closed != 0, draw_color(img, bgr), thickness, cv::LINE_AA, draw_shift);
    return KR_OK;
    KR_CV_CATCH
}

/* Blends a shape drawn by fn into img at alpha, touching only the shape's bounding
 * box (scratch buffer reused across calls). */
template <typename F>
static void draw_blended(cv::Mat &m, cv::Rect box, double alpha, F fn)
{
    box &= cv::Rect(0, 0, m.cols, m.rows);
    if (box.area() <= 0)
        return;
    if (alpha >= 1.0) {
        fn(m);
        return;
    }
    static thread_local cv::Mat scratch_buf; /* grows only: no allocation per call */
    if (scratch_buf.rows < box.height || scratch_buf.cols < box.width || scratch_buf.type() != m.type())
        scratch_buf.create(std::max(box.height, scratch_buf.rows), std::max(box.width, scratch_buf.cols), m.type());
    cv::Mat scratch = scratch_buf(cv::Rect(0, 0, box.width, box.height));
    cv::Mat roi = m(box);
    roi.copyTo(scratch);
    fn(m);
    cv::addWeighted(roi, alpha, scratch, 1.0 - alpha, 0.0, roi);
}

extern "C" kr_status kr_cv_draw_polygon_fill(kr_image_t *img, const double *xy, int n,
                                             const uint8_t bgr[3], double alpha)
{
    KR_CV_TRY
    if (!draw_ok(img) || !bgr || !xy || n < 3 || !(alpha >= 0.0 && alpha <= 1.0))
        return KR_ERR_INVALID;
    if (alpha == 0.0)
        return KR_OK;
    static thread_local std::vector<cv::Point> pts;
    pts.clear();
    double x0 = 1e300, y0 = 1e300, x1 = -1e300, y1 = -1e300;
    for (int i = 0; i < n; i++) {
        pts.push_back(draw_pt(xy[2 * i], xy[2 * i + 1]));
        x0 = std::fmin(x0, xy[2 * i]);
        x1 = std::fmax(x1, xy[2 * i]);
        y0 = std::fmin(y0, xy[2 * i + 1]);
        y1 = std::fmax(y1, xy[2 * i + 1]);
    }
    x0 = std::fmax(x0, -1.0); y0 = std::fmax(y0, -1.0);
    x1 = std::fmin(x1, img->w + 1.0); y1 = std::fmin(y1, img->h + 1.0);
    if (x1 < x0 || y1 < y0)
        return KR_OK; /* entirely outside */
    cv::Rect box((int)std::floor(x0) - 1, (int)std::floor(y0) - 1, (int)std::ceil(x1 - x0) + 3,
                 (int)std::ceil(y1 - y0) + 3);
    cv::Mat m = view(img);
    cv::Scalar c = draw_color(img, bgr);
    draw_blended(m, box, alpha, [&](cv::Mat &mm) {
        const cv::Point *pp = pts.data();
        int np = n;
        cv::fillPoly(mm, &pp, &np, 1, c, cv::LINE_AA, draw_shift);
    });
    return KR_OK;
    KR_CV_CATCH
}

extern "C" kr_status kr_cv_draw_circle(kr_image_t *img, double cx, double cy, double r,
                                       const uint8_t bgr[3], int thickness)
{
    KR_CV_TRY
    if (!draw_ok(img) || !bgr || !(r >= 0.0))
        return KR_ERR_INVALID;
    cv::Mat m = view(img);
    int rr = (int)std::lround(std::fmin(r, 1e6) * (1 << draw_shift));
    cv::circle(m, draw_pt(cx, cy), rr, draw_color(img, bgr), thickness > 0 ? thickness : cv::FILLED,
               cv::LINE_AA, draw_shift);
    return KR_OK;
    KR_CV_CATCH
}

extern "C" kr_status kr_cv_draw_rect_fill(kr_image_t *img, int x, int y, int w, int h,
                                          const uint8_t bgr[3], double alpha)
{
    KR_CV_TRY
    if (!draw_ok(img) || !bgr || w < 0 || h < 0 || !(alpha >= 0.0 && alpha <= 1.0))
        return KR_ERR_INVALID;
    cv::Rect box = cv::Rect(x, y, w, h) & cv::Rect(0, 0, img->w, img->h);
    if (box.area() <= 0 || alpha == 0.0)
        return KR_OK;
    cv::Mat m = view(img);
    cv::Mat roi = m(box);
    cv::Scalar c = draw_color(img, bgr);
    if (alpha >= 1.0) {
        roi.setTo(c);
    } else {
        roi.convertTo(roi, -1, 1.0 - alpha); /* in place, no temporary image */
        cv::add(roi, c * alpha, roi);
    }
    return KR_OK;
    KR_CV_CATCH
}

/* The text as a string whose buffer is kept per thread (no heap allocation per call
 * once it has grown; cv::String is std::string). */
static const std::string &text_buf(const char *ascii)
{
    static thread_local std::string s;
    s.assign(ascii);
    return s;
}

static double text_scale(double height_px, int thickness)
{
    return cv::getFontScaleFromHeight(cv::FONT_HERSHEY_SIMPLEX, (int)std::lround(height_px), thickness);
}

extern "C" kr_status kr_cv_text_size(const char *ascii, double height_px, int thickness, int *w, int *h)
{
    KR_CV_TRY
    if (!ascii || !w || !h || !(height_px >= 1.0) || thickness < 1)
        return KR_ERR_INVALID;
    int base = 0;
    cv::Size sz = cv::getTextSize(text_buf(ascii), cv::FONT_HERSHEY_SIMPLEX, text_scale(height_px, thickness),
                                  thickness, &base);
    *w = sz.width;
    *h = sz.height + base;
    return KR_OK;
    KR_CV_CATCH
}

extern "C" kr_status kr_cv_draw_text(kr_image_t *img, const char *ascii, int x, int y, double height_px,
                                     const uint8_t bgr[3], int thickness, const uint8_t *bg, double bg_alpha)
{
    KR_CV_TRY
    if (!draw_ok(img) || !ascii || !bgr || !(height_px >= 1.0) || thickness < 1)
        return KR_ERR_INVALID;
    double scale = text_scale(height_px, thickness);
    int base = 0;
    const std::string &text = text_buf(ascii);
    cv::Size sz = cv::getTextSize(text, cv::FONT_HERSHEY_SIMPLEX, scale, thickness, &base);
    if (bg) {
        kr_status st = kr_cv_draw_rect_fill(img, x - 3, y - 3, sz.width + 6, sz.height + base + 6, bg, bg_alpha);
        if (st != KR_OK)
            return st;
    }
    cv::Mat m = view(img);
    cv::putText(m, text, cv::Point(x, y + sz.height), cv::FONT_HERSHEY_SIMPLEX, scale, draw_color(img, bgr),
                thickness, cv::LINE_AA);
    return KR_OK;
    KR_CV_CATCH
}

extern "C" kr_status kr_cv_draw_blend(kr_image_t *dst, const kr_image_t *src, double alpha)
{
    KR_CV_TRY
    if (!draw_ok(dst) || !draw_ok(src) || dst->w != src->w || dst->h != src->h ||
        dst->channels != src->channels || !(alpha >= 0.0 && alpha <= 1.0))
        return KR_ERR_INVALID;
    cv::Mat d = view(dst), s = view(src);
    cv::addWeighted(d, 1.0 - alpha, s, alpha, 0.0, d);
    return KR_OK;
    KR_CV_CATCH
}


extern "C" kr_status kr_cv_draw_label_outlines(const kr_image_t *labels, uint8_t value, double min_area_px,
                                               double eps_px, double *xy, int max_pts, int *counts,
                                               int max_polys, int *n_polys)
{
    KR_CV_TRY
    if (n_polys)
        *n_polys = 0;
    if (!labels || !labels->px || labels->channels != 1 || labels->w < 1 || labels->h < 1 || !xy ||
        !counts || !n_polys || max_pts < 3 || max_polys < 1)
        return KR_ERR_INVALID;
    static thread_local cv::Mat mask;
    static thread_local std::vector<std::vector<cv::Point>> contours;
    static thread_local std::vector<cv::Point> simple;
    static thread_local std::vector<std::pair<double, int>> order;
    cv::compare(view(labels), cv::Scalar(value), mask, cv::CMP_EQ); /* reuses mask's buffer */
    for (auto &c : contours)
        c.clear();
    cv::findContours(mask, contours, cv::RETR_EXTERNAL, cv::CHAIN_APPROX_SIMPLE);
    order.clear();
    for (size_t i = 0; i < contours.size(); i++) {
        double a = cv::contourArea(contours[i]) + 0.5 * cv::arcLength(contours[i], true) + 1.0;
        if (a >= min_area_px) /* pixel count ~ polygon area + half the perimeter + 1 */
            order.push_back(std::make_pair(-a, (int)i));
    }
    std::sort(order.begin(), order.end());
    int used = 0;
    for (const auto &o : order) {
        if (*n_polys >= max_polys)
            break;
        cv::approxPolyDP(contours[(size_t)o.second], simple, eps_px > 0 ? eps_px : 0.0, true);
        int n = (int)simple.size();
        if (n < 3 || used + n > max_pts)
            continue;
        for (int k = 0; k < n; k++) {
            xy[2 * (used + k)] = simple[(size_t)k].x + 0.5;
            xy[2 * (used + k) + 1] = simple[(size_t)k].y + 0.5;
        }
        counts[(*n_polys)++] = n;
        used += n;
    }
    return KR_OK;
    KR_CV_CATCH
}
