/* kr_app_opts.h - command-line option values shared by the clip, review and live commands:
 * one wording for a missing value, a bad number and an unknown option (exit status 2).
 * SPDX-License-Identifier: MIT                                                        */
#ifndef KR_APP_OPTS_H
#define KR_APP_OPTS_H

/* The value after the option argv[*i], advancing *i; NULL (after one line on stderr:
 * "CMD: OPT needs a value (see karuta-ref CMD --help)") when there is none. cmd, argv:
 * borrowed; the result points into argv. */
const char *kr_app_opt_value(const char *cmd, int argc, char **argv, int *i);

/* val as a finite number in [lo, hi] into *out: 0; else 2 after one line on stderr
 * naming cmd, opt, the value and the range ("CMD: OPT: bad value 'VAL' (a number from LO
 * to HI)"). kr_app_opt_int takes whole numbers only. */
int kr_app_opt_double(const char *cmd, const char *opt, const char *val, double lo, double hi, double *out);
int kr_app_opt_int(const char *cmd, const char *opt, const char *val, long long lo, long long hi, long long *out);

/* One line on stderr, "CMD: unknown option 'OPT' (see karuta-ref CMD --help)"; returns 2. */
int kr_app_opt_unknown(const char *cmd, const char *opt);

#endif /* KR_APP_OPTS_H */
