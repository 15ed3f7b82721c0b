/* kr_app.h - the karuta-ref subcommands; each lives in kr_cmd_<name>.c.
 * Every command returns the process exit status: 0 ok, 1 bad input or failed
 * run, 2 usage error (../../README.md, spec cli.md).
 * SPDX-License-Identifier: MIT                                          */
#ifndef KR_APP_H
#define KR_APP_H

int kr_cmd_rule(int argc, char **argv);
int kr_cmd_calibrate(int argc, char **argv);
int kr_cmd_analyze(int argc, char **argv);
int kr_cmd_review(int argc, char **argv);
int kr_cmd_clip(int argc, char **argv);
int kr_cmd_live(int argc, char **argv);
int kr_cmd_layout(int argc, char **argv);
int kr_cmd_enroll(int argc, char **argv);

#endif /* KR_APP_H */
