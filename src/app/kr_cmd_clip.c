/* kr_cmd_clip.c - karuta-ref clip (not implemented yet).
 * SPDX-License-Identifier: MIT */
#include "kr_app.h"
#include "kr_core.h"

int kr_cmd_clip(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    kr_log(KR_LOG_ERROR, "clip: not implemented yet");
    return 1;
}
