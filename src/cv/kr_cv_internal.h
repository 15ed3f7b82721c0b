/* kr_cv_internal.h - helpers shared by the cv module's files (not public).
 * SPDX-License-Identifier: MIT */
#ifndef KR_CV_INTERNAL_H
#define KR_CV_INTERNAL_H
#ifdef __cplusplus
extern "C" {
#endif

/* Sets the thread-local text kr_cv_last_error() returns (printf format). */
void kr_cv_set_error_(const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 1, 2)))
#endif
    ;

#ifdef __cplusplus
}
#endif
#endif /* KR_CV_INTERNAL_H */
