/* kr_outfile.c - complete-or-nothing output files (write temporary, rename).
 * SPDX-License-Identifier: MIT */
#include "kr_core.h"
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

kr_status kr_outfile_open(const char *path, kr_outfile_t *of)
{
    memset(of, 0, sizeof *of);
    if (!path || !*path)
        return KR_ERR_INVALID;
    size_t n = strlen(path) + 32;
    of->path = kr_strdup(path);
    of->tmp_path = malloc(n);
    if (!of->path || !of->tmp_path) {
        kr_outfile_abort(of);
        return KR_ERR_NOMEM;
    }
    snprintf(of->tmp_path, n, "%s.tmp.%ld", path, (long)getpid());
    of->fp = fopen(of->tmp_path, "wb");
    if (!of->fp) {
        free(of->tmp_path);
        of->tmp_path = NULL;
        kr_outfile_abort(of);
        return KR_ERR_IO;
    }
    return KR_OK;
}

kr_status kr_outfile_commit(kr_outfile_t *of)
{
    kr_status st = KR_OK;
    if (!of->fp)
        return KR_ERR_INVALID;
    if (fflush(of->fp) != 0 || fsync(fileno(of->fp)) != 0)
        st = KR_ERR_IO;
    if (fclose(of->fp) != 0)
        st = KR_ERR_IO;
    of->fp = NULL;
    if (st == KR_OK && rename(of->tmp_path, of->path) != 0)
        st = KR_ERR_IO;
    if (st != KR_OK)
        remove(of->tmp_path);
    free(of->tmp_path);
    free(of->path);
    of->tmp_path = of->path = NULL;
    return st;
}

void kr_outfile_abort(kr_outfile_t *of)
{
    if (!of)
        return;
    if (of->fp)
        fclose(of->fp);
    if (of->tmp_path)
        remove(of->tmp_path);
    free(of->tmp_path);
    free(of->path);
    memset(of, 0, sizeof *of);
}
