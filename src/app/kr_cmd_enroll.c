/* kr_cmd_enroll.c - karuta-ref enroll (not implemented yet).
 * SPDX-License-Identifier: MIT */
#include "kr_app.h"
#include "kr_core.h"

int kr_cmd_enroll(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    kr_log(KR_LOG_ERROR, "enroll: not implemented yet");
    return 1;
}
