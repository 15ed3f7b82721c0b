/* kr_cv.cpp - the project's single OpenCV translation unit (see kr_cv.h).
 * Every extern "C" body catches all exceptions; nothing C++ escapes.
 * SPDX-License-Identifier: MIT */
#include "kr_cv.h"

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/calib3d.hpp>

#include <cstdlib>
#include <cstring>
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

/* ---- general ---------------------------------------------------------- */
extern "C" kr_status kr_cv_write_image(const char *path, const kr_image_t *img)
{
    KR_CV_TRY
    if (!path || !img || !img->px)
        return KR_ERR_INVALID;
    if (!cv::imwrite(path, view(img))) {
        set_error("could not write image");
        return KR_ERR_IO;
    }
    return KR_OK;
    KR_CV_CATCH
}

extern "C" kr_status kr_cv_read_image(const char *path, kr_image_t *out, uint8_t **px)
{
    KR_CV_TRY
    *px = NULL;
    cv::Mat m = cv::imread(path, cv::IMREAD_COLOR);
    if (m.empty()) {
        set_error("could not read image");
        return KR_ERR_IO;
    }
    size_t n = (size_t)m.rows * (size_t)m.cols * 3;
    uint8_t *buf = (uint8_t *)std::malloc(n);
    if (!buf)
        return KR_ERR_NOMEM;
    for (int y = 0; y < m.rows; y++)
        std::memcpy(buf + (size_t)y * m.cols * 3, m.ptr(y), (size_t)m.cols * 3);
    out->w = m.cols; out->h = m.rows; out->stride = m.cols * 3; out->channels = 3; out->px = buf;
    *px = buf;
    return KR_OK;
    KR_CV_CATCH
}

/* ---- synth (rendering helpers) ---------------------------------------- */

/* ---- calib ------------------------------------------------------------ */

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
