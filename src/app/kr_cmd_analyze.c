/* kr_cmd_analyze.c - karuta-ref analyze (not implemented yet).
 * SPDX-License-Identifier: MIT */
#include "kr_app.h"
#include "kr_core.h"

int kr_cmd_analyze(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    kr_log(KR_LOG_ERROR, "analyze: not implemented yet");
    return 1;
}
