/* kr_cmd_layout.c - karuta-ref layout (not implemented yet).
 * SPDX-License-Identifier: MIT */
#include "kr_app.h"
#include "kr_core.h"

int kr_cmd_layout(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    kr_log(KR_LOG_ERROR, "layout: not implemented yet");
    return 1;
}
