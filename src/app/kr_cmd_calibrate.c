/* kr_cmd_calibrate.c - karuta-ref calibrate (not implemented yet).
 * SPDX-License-Identifier: MIT */
#include "kr_app.h"
#include "kr_core.h"

int kr_cmd_calibrate(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    kr_log(KR_LOG_ERROR, "calibrate: not implemented yet");
    return 1;
}
