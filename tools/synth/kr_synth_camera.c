/* kr_synth_camera.c - the synthetic camera: pinhole above the mat with tilt, pan and
 * roll, OpenCV radial distortion (k1, k2; p1 = p2 = k3 = 0), and the true homography.
 * SPDX-License-Identifier: MIT                                                      */
#include "kr_synth_internal.h"

#include <math.h>
#include <string.h>

static void matmul3(const double *a, const double *b, double *out)
{
    double r[9];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            r[3 * i + j] = a[3 * i] * b[j] + a[3 * i + 1] * b[3 + j] + a[3 * i + 2] * b[6 + j];
    memcpy(out, r, sizeof r);
}

static void inv3(const double *m, double *o)
{
    double a = m[0], b = m[1], c = m[2], d = m[3], e = m[4], f = m[5], g = m[6], h = m[7], i = m[8];
    double A = e * i - f * h, B = -(d * i - f * g), C = d * h - e * g;
    double det = a * A + b * B + c * C;
    o[0] = A / det; o[1] = -(b * i - c * h) / det; o[2] = (b * f - c * e) / det;
    o[3] = B / det; o[4] = (a * i - c * g) / det; o[5] = -(a * f - c * d) / det;
    o[6] = C / det; o[7] = -(a * h - b * g) / det; o[8] = (a * e - b * d) / det;
}

/* Camera frame: x right, y down in the image, z along the view. With no tilt the
 * camera looks straight down, image right = mat +x and image up = mat +y (A at the
 * bottom). R = Rz(roll) * Ry(pan) * Rx(tilt) * R0; the centre C is placed so the
 * optical axis meets the mat at (cx_mm, cy_mm) and C.z = height_mm.
 * Homography (mat z = 0 -> undistorted px): H = K [r1 r2 -R C]. */
void kr_synth_cam_build(kr_synth_camera *c, int w, int h, double height_mm, double view_mm,
                        double cx_mm, double cy_mm, double tilt_deg, double pan_deg,
                        double roll_deg, double k1, double k2, double ppx, double ppy)
{
    memset(c, 0, sizeof *c);
    c->w = w;
    c->h = h;
    double f = h * height_mm / view_mm;
    double K[9] = {f, 0, (w - 1) / 2.0 + ppx, 0, f, (h - 1) / 2.0 + ppy, 0, 0, 1};
    memcpy(c->K, K, sizeof K);
    c->k1 = k1;
    c->k2 = k2;
    double t = tilt_deg * KR_PI / 180, p = pan_deg * KR_PI / 180, r = roll_deg * KR_PI / 180;
    double R0[9] = {1, 0, 0, 0, -1, 0, 0, 0, -1};
    double Rx[9] = {1, 0, 0, 0, cos(t), -sin(t), 0, sin(t), cos(t)};
    double Ry[9] = {cos(p), 0, sin(p), 0, 1, 0, -sin(p), 0, cos(p)};
    double Rz[9] = {cos(r), -sin(r), 0, sin(r), cos(r), 0, 0, 0, 1};
    double R[9];
    matmul3(Rx, R0, R);
    matmul3(Ry, R, R);
    matmul3(Rz, R, R);
    memcpy(c->R, R, sizeof R);
    /* view direction in the world: third row of R */
    double dz[3] = {R[6], R[7], R[8]};
    double s = height_mm / -dz[2];
    c->C[0] = cx_mm - dz[0] * s;
    c->C[1] = cy_mm - dz[1] * s;
    c->C[2] = height_mm;
    double tv[3];
    for (int i = 0; i < 3; i++)
        tv[i] = -(R[3 * i] * c->C[0] + R[3 * i + 1] * c->C[1] + R[3 * i + 2] * c->C[2]);
    double M[9] = {R[0], R[1], tv[0], R[3], R[4], tv[1], R[6], R[7], tv[2]};
    matmul3(K, M, c->H);
    double n = c->H[8];
    for (int i = 0; i < 9; i++)
        c->H[i] /= n;
    inv3(c->H, c->Hinv);
}

void kr_synth_cam_project(const kr_synth_camera *c, double x, double y, double z, double px[2])
{
    const double *R = c->R;
    double d[3] = {x - c->C[0], y - c->C[1], z - c->C[2]};
    double X = R[0] * d[0] + R[1] * d[1] + R[2] * d[2];
    double Y = R[3] * d[0] + R[4] * d[1] + R[5] * d[2];
    double Z = R[6] * d[0] + R[7] * d[1] + R[8] * d[2];
    double xn = X / Z, yn = Y / Z, r2 = xn * xn + yn * yn;
    double k = 1 + c->k1 * r2 + c->k2 * r2 * r2;
    px[0] = c->K[0] * xn * k + c->K[2];
    px[1] = c->K[4] * yn * k + c->K[5];
}

bool kr_synth_cam_unproject(const kr_synth_camera *c, double u, double v, double mm[2])
{
    double xd = (u - c->K[2]) / c->K[0], yd = (v - c->K[5]) / c->K[4];
    double xn = xd, yn = yd;
    for (int i = 0; i < 30; i++) {
        double r2 = xn * xn + yn * yn;
        double k = 1 + c->k1 * r2 + c->k2 * r2 * r2;
        xn = xd / k;
        yn = yd / k;
    }
    const double *R = c->R;
    double dw[3];
    for (int i = 0; i < 3; i++)
        dw[i] = R[i] * xn + R[3 + i] * yn + R[6 + i];
    if (dw[2] >= -1e-9)
        return false;
    double s = -c->C[2] / dw[2];
    mm[0] = c->C[0] + s * dw[0];
    mm[1] = c->C[1] + s * dw[1];
    return true;
}

void kr_synth_cam_proxy(const kr_synth_camera *c, double x, double y, double z, double out[2])
{
    double s = c->C[2] / (c->C[2] - z);
    out[0] = c->C[0] + (x - c->C[0]) * s;
    out[1] = c->C[1] + (y - c->C[1]) * s;
}
