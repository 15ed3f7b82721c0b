/* kr_main.c - karuta-ref: dispatch to a subcommand.
 * SPDX-License-Identifier: MIT */
#include "kr_app.h"
#include "kr_core.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *what;
} commands[] = {
    {"rule", kr_cmd_rule, "rule a match log (karuta-match/1) and print rulings"},
    {"calibrate", kr_cmd_calibrate, "camera-to-mat calibration from a video"},
    {"analyze", kr_cmd_analyze, "footage + match log -> events, rulings, summary"},
    {"review", kr_cmd_review, "analyze, plus a review page with clips"},
    {"clip", kr_cmd_clip, "export a dispute clip with overlays"},
    {"live", kr_cmd_live, "live judge assistance from a GStreamer source"},
    {"layout", kr_cmd_layout, "read the card layout from the footage"},
    {"enroll", kr_cmd_enroll, "teach the program a card set"},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: karuta-ref COMMAND [ARGS...]   (karuta-ref COMMAND --help)\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].what);
}

int main(int argc, char **argv)
{
    kr_log_set_program("karuta-ref");
    if (getenv("KR_DEBUG")) /* the modules' decision lines (KR_DEBUG; not in release builds) */
        kr_log_set_level(KR_LOG_DEBUG);
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(stdout);
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name))
            return commands[i].run(argc - 1, argv + 1);
    kr_log(KR_LOG_ERROR, "unknown command '%s' (see karuta-ref --help)", argv[1]);
    return 2;
}
