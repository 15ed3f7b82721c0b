/* kr_json.h - JSON Lines for the rules engine: match-log records (karuta-match/1) in
 * and out, rulings (karuta-rulings/1) out. The only place cJSON meets the records.
 * SPDX-License-Identifier: MIT                                                    */
#ifndef KR_JSON_H
#define KR_JSON_H
#include "kr_core.h"  /* kr_status, FILE */
#include "kr_rules.h" /* kr_rules_record, kr_rules_output */
#ifdef __cplusplus
extern "C" {
#endif

/* Getting started (reading a match log, as `karuta-ref rule` does):
 *   char err[KR_JSON_ERR_MAX];  kr_rules_record rec;   (rec is about 3.5 KB: keep one, reuse it)
 *   for each line (getline, line number n):
 *       if (kr_json_is_blank(line, len)) continue;
 *       if (kr_json_read_record(line, len, &rec, err, sizeof err) != KR_OK)
 *           kr_log(KR_LOG_ERROR, "%s:%ld: %s", path, n, err)  and stop (exit 1)
 *       kr_rules_feed(&state, &rec) ...
 *       while (kr_rules_next(&state, &out)) kr_json_write_output(stdout, &out);
 * Writing a record (analyze's events.jsonl): kr_json_write_record(fp, &rec).
 * Both writers produce exactly one line ending in '\n'; reading back what
 * kr_json_write_record wrote gives the same record (round trip).
 * Thread safety: cJSON's error pointer is global, so parse from one thread at a time. */

#define KR_JSON_ERR_MAX 200 /* bytes an error message needs, NUL included */

/* True if line[0 .. len) holds only white space (such lines are skipped). */
int kr_json_is_blank(const char *line, size_t len);

/* Parses one match-log line (line[0 .. len), need not be NUL-terminated; a
 * trailing newline is allowed) into *rec (overwritten; absent optional fields get
 * their defaults). Unknown fields are ignored. On bad input returns
 * KR_ERR_FORMAT and writes a one-line reason without file or line number
 * (e.g. `touch: missing "hand"`, `unknown record type "tuch"`) to err[0 .. err_cap).
 * Checks only the line itself; order and card placement are kr_rules_feed's job. */
kr_status kr_json_read_record(const char *line, size_t len, kr_rules_record *rec, char *err,
                              size_t err_cap);

/* Writes rec as one JSON line to fp (borrowed). KR_ERR_NOMEM / KR_ERR_IO on failure. */
kr_status kr_json_write_record(FILE *fp, const kr_rules_record *rec);

/* Writes a ruling or match_end (rulings.md) as one JSON line to fp (borrowed).
 * KR_ERR_NOMEM / KR_ERR_IO on failure. */
kr_status kr_json_write_output(FILE *fp, const kr_rules_output *out);

/* The same lines as strings without the newline; caller frees with free().
 * NULL on allocation failure. */
char *kr_json_record_string(const kr_rules_record *rec);
char *kr_json_output_string(const kr_rules_output *out);

#ifdef __cplusplus
}
#endif
#endif /* KR_JSON_H */
