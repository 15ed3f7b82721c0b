/* kr_app_opts.h - command-line options shared by the clip, review and live commands: one
 * table per command, one wording for a missing value, a bad number and an unknown option
 * (exit status 2).
 * SPDX-License-Identifier: MIT                                                        */
#ifndef KR_APP_OPTS_H
#define KR_APP_OPTS_H

/* val as a finite number in [lo, hi] into *out: 0; else 2 after one line on stderr
 * naming cmd, opt, the value and the range ("CMD: OPT: bad value 'VAL' (a number from LO
 * to HI)"). kr_app_opt_int takes whole numbers only. */
int kr_app_opt_double(const char *cmd, const char *opt, const char *val, double lo, double hi, double *out);
int kr_app_opt_int(const char *cmd, const char *opt, const char *val, long long lo, long long hi, long long *out);

/* One option of a command's table (a table ends with a NULL name). */
typedef struct kr_app_opt {
    const char *name;      /* "--match" */
    const char *alias;     /* another spelling ("-o"), or NULL */
    int         key;       /* > 0: what kr_app_opt_next returns for it */
    int         has_value; /* 1: takes the next argument as its value */
} kr_app_opt;

enum {
    KR_APP_OPT_ARG = 0,   /* a positional argument (in *val) */
    KR_APP_OPT_HELP = -1, /* --help or -h */
    KR_APP_OPT_BAD = -2   /* an unknown option or a missing value: one line on stderr said so */
};

/* Reads argv[*i] against table (borrowed): an option's key (its value in *val when it
 * takes one, *i advanced past it; else *val NULL), KR_APP_OPT_ARG with *val = argv[*i],
 * KR_APP_OPT_HELP, or KR_APP_OPT_BAD after one line on stderr: "CMD: unknown option 'OPT'
 * (see karuta-ref CMD --help)" or "CMD: OPT needs a value (see karuta-ref CMD --help)".
 * "-" alone is a positional argument. */
int kr_app_opt_next(const char *cmd, const kr_app_opt *table, int argc, char **argv, int *i, const char **val);

#endif /* KR_APP_OPTS_H */
