/* test_json.c - CUnit suite for src/json: reading match-log lines (errors included),
 * writing every record type back (round trip) and writing rulings.
 * SPDX-License-Identifier: MIT */
#include "kr_json.h"

#include <CUnit/Basic.h>
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

static kr_rules_record rec, back;
static char err[KR_JSON_ERR_MAX];

static kr_status parse(const char *line, kr_rules_record *r)
{
    return kr_json_read_record(line, strlen(line), r, err, sizeof err);
}

/* Writes rec, reads it back, and compares the two records field by field. */
static void round_trip(const char *line)
{
    CU_ASSERT_EQUAL_FATAL(parse(line, &rec), KR_OK);
    char *s = kr_json_record_string(&rec);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    kr_status st = parse(s, &back);
    if (st != KR_OK)
        fprintf(stderr, "\nround trip failed: %s: %s\n", s, err);
    CU_ASSERT_EQUAL_FATAL(st, KR_OK);
    CU_ASSERT_EQUAL(back.type, rec.type);
    CU_ASSERT_EQUAL(back.has_t, rec.has_t);
    CU_ASSERT_EQUAL(back.t_us, rec.t_us);
    CU_ASSERT_EQUAL(back.seq, rec.seq);
    CU_ASSERT_EQUAL(back.card, rec.card);
    CU_ASSERT_EQUAL(back.player, rec.player);
    CU_ASSERT_EQUAL(back.hand, rec.hand);
    CU_ASSERT_EQUAL(back.territory, rec.territory);
    CU_ASSERT_EQUAL(back.kind, rec.kind);
    CU_ASSERT_STRING_EQUAL(back.id, rec.id);
    CU_ASSERT_EQUAL(back.confidence, rec.confidence);
    CU_ASSERT_EQUAL(back.t_err_us, rec.t_err_us);
    CU_ASSERT_EQUAL(back.has_pos, rec.has_pos);
    CU_ASSERT_EQUAL(back.x_mm, rec.x_mm);
    CU_ASSERT_EQUAL(back.y_mm, rec.y_mm);
    CU_ASSERT_STRING_EQUAL(back.name[0], rec.name[0]);
    CU_ASSERT_STRING_EQUAL(back.name[1], rec.name[1]);
    CU_ASSERT_EQUAL(back.declared[0], rec.declared[0]);
    CU_ASSERT_EQUAL(back.declared[1], rec.declared[1]);
    CU_ASSERT_EQUAL_FATAL(back.n_cards, rec.n_cards);
    for (int i = 0; i < rec.n_cards; i++) {
        CU_ASSERT_EQUAL(back.cards[i].card, rec.cards[i].card);
        CU_ASSERT_EQUAL(back.cards[i].owner, rec.cards[i].owner);
        CU_ASSERT_EQUAL(back.cards[i].row, rec.cards[i].row);
        CU_ASSERT_EQUAL(back.cards[i].has_pos, rec.cards[i].has_pos);
        CU_ASSERT_EQUAL(back.cards[i].x_mm, rec.cards[i].x_mm);
        CU_ASSERT_EQUAL(back.cards[i].y_mm, rec.cards[i].y_mm);
    }
    free(s);
}

static void test_every_record_type_round_trips(void)
{
    static const char *const lines[] = {
        "{\"type\":\"match\",\"format\":\"karuta-match/1\",\"players\":{\"A\":{\"name\":\"佐藤\",\"hand\":\"left\"},\"B\":{\"name\":\"Ito\"}}}",
        "{\"type\":\"match\",\"format\":\"karuta-match/1\"}",
        "{\"type\":\"layout\",\"t_us\":0,\"cards\":[{\"card\":17,\"owner\":\"A\",\"row\":\"upper\",\"x_mm\":-310.0,\"y_mm\":-51.5},{\"card\":88,\"owner\":\"B\",\"row\":\"lower\",\"x_mm\":0.1,\"y_mm\":123.456789}]}",
        "{\"type\":\"layout\",\"cards\":[{\"card\":1,\"owner\":\"B\"}]}",
        "{\"type\":\"kami_start\",\"seq\":3,\"card\":17,\"t_us\":91200000}",
        "{\"type\":\"kimariji\",\"seq\":3,\"t_us\":91650000}",
        "{\"type\":\"reading_void\",\"seq\":3,\"t_us\":91500000}",
        "{\"type\":\"shimo_start\",\"seq\":3,\"t_us\":95100000}",
        "{\"type\":\"touch\",\"id\":\"e41\",\"t_us\":91702000,\"t_err_us\":2000,\"player\":\"B\",\"hand\":\"right\",\"card\":17,\"territory\":\"A\",\"confidence\":0.97}",
        "{\"type\":\"touch\",\"t_us\":5000000000,\"player\":\"A\",\"hand\":\"left\",\"card\":null,\"territory\":\"B\"}",
        "{\"type\":\"push_out\",\"id\":\"e42\",\"t_us\":91718000,\"player\":\"B\",\"card\":17,\"territory\":\"A\",\"confidence\":0.99}",
        "{\"type\":\"hand_contact\",\"id\":\"e43\",\"t_us\":91700000,\"confidence\":0.6}",
        "{\"type\":\"early_entry\",\"id\":\"e44\",\"t_us\":91190000,\"player\":\"A\",\"hand\":\"right\"}",
        "{\"type\":\"early_entry\",\"t_us\":91190000,\"player\":\"B\"}",
        "{\"type\":\"settle\",\"t_us\":92900000}",
        "{\"type\":\"send\",\"t_us\":93400000,\"from\":\"B\",\"card\":64}",
        "{\"type\":\"rearrange\",\"t_us\":93800000,\"player\":\"A\",\"card\":5,\"x_mm\":-120.0,\"y_mm\":-130.0}",
        "{\"type\":\"force_majeure\",\"t_us\":91750000,\"card\":17}",
        "{\"type\":\"interference\",\"t_us\":91700000,\"player\":\"A\",\"kind\":\"grab\"}",
    };
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++)
        round_trip(lines[i]);
}

static void test_reads_touch_fields_and_defaults(void)
{
    CU_ASSERT_EQUAL_FATAL(parse("{\"type\":\"touch\",\"t_us\":7,\"player\":\"B\",\"hand\":\"left\",\"card\":null,"
                                "\"territory\":\"A\",\"unknown\":[1,2]}\n",
                                &rec),
                          KR_OK);
    CU_ASSERT_EQUAL(rec.type, KR_REC_TOUCH);
    CU_ASSERT_EQUAL(rec.t_us, 7);
    CU_ASSERT_EQUAL(rec.player, KR_SIDE_B);
    CU_ASSERT_EQUAL(rec.hand, KR_HAND_LEFT);
    CU_ASSERT_EQUAL(rec.card, 0);
    CU_ASSERT_EQUAL(rec.territory, KR_SIDE_A);
    CU_ASSERT_EQUAL(rec.confidence, 1.0);
    CU_ASSERT_EQUAL(rec.t_err_us, 0);
    CU_ASSERT_STRING_EQUAL(rec.id, "");
}

static void expect_error(const char *line, const char *needle)
{
    CU_ASSERT_EQUAL(parse(line, &rec), KR_ERR_FORMAT);
    if (!strstr(err, needle))
        fprintf(stderr, "\nexpected '%s' in '%s'\n", needle, err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, needle));
    CU_ASSERT_PTR_NULL(strchr(err, '\n'));
}

static void test_malformed_json_is_an_error(void)
{
    expect_error("{\"type\":\"touch\",\"t_us\":1", "malformed JSON");
    expect_error("{\"type\":\"settle\",\"t_us\":1} x", "text after the object");
    expect_error("[1,2]", "one JSON object");
    expect_error("", "malformed JSON");
}

static void test_missing_or_ill_typed_fields_are_errors(void)
{
    expect_error("{\"t_us\":1}", "missing \"type\"");
    expect_error("{\"type\":\"touch\",\"t_us\":1,\"player\":\"A\",\"card\":3,\"territory\":\"A\"}",
                 "touch: missing \"hand\"");
    expect_error("{\"type\":\"touch\",\"t_us\":\"1\",\"player\":\"A\",\"hand\":\"left\",\"card\":3,\"territory\":\"A\"}",
                 "\"t_us\" must be an integer");
    expect_error("{\"type\":\"touch\",\"t_us\":1.5,\"player\":\"A\",\"hand\":\"left\",\"card\":3,\"territory\":\"A\"}",
                 "\"t_us\" must be an integer");
    expect_error("{\"type\":\"touch\",\"t_us\":1,\"player\":\"C\",\"hand\":\"left\",\"card\":3,\"territory\":\"A\"}",
                 "\"player\" must be \"A\" or \"B\"");
    expect_error("{\"type\":\"touch\",\"t_us\":1,\"player\":\"A\",\"hand\":\"left\",\"card\":101,\"territory\":\"A\"}",
                 "\"card\" must be a card number");
    expect_error("{\"type\":\"push_out\",\"t_us\":1,\"player\":\"A\",\"card\":null}", "not null");
    expect_error("{\"type\":\"settle\"}", "settle: missing \"t_us\"");
    expect_error("{\"type\":\"hand_contact\",\"t_us\":1,\"confidence\":1.5}", "\"confidence\" must be");
    expect_error("{\"type\":\"layout\",\"cards\":[{\"card\":3}]}", "missing \"owner\"");
    expect_error("{\"type\":\"kami_start\",\"seq\":0,\"card\":3,\"t_us\":1}", "\"seq\" must be");
    expect_error("{\"type\":\"match\",\"format\":\"karuta-match/2\"}", "unsupported format");
    expect_error("{\"type\":\"touch\",\"id\":\"0123456789012345678901234567890123456789\",\"t_us\":1,"
                 "\"player\":\"A\",\"hand\":\"left\",\"card\":3,\"territory\":\"A\"}",
                 "\"id\" is longer");
}

static void test_unknown_type_is_an_error(void)
{
    expect_error("{\"type\":\"tuch\",\"t_us\":1}", "unknown record type \"tuch\"");
    expect_error("{\"type\":3}", "\"type\" must be a string");
}

static void test_blank_lines_are_recognised(void)
{
    CU_ASSERT_TRUE(kr_json_is_blank(" \t\r\n", 4));
    CU_ASSERT_TRUE(kr_json_is_blank("", 0));
    CU_ASSERT_FALSE(kr_json_is_blank(" {}", 3));
}

static void test_ruling_is_written_with_every_field(void)
{
    kr_rules_output o;
    memset(&o, 0, sizeof o);
    o.type = KR_OUT_RULING;
    kr_ruling *r = &o.ruling;
    r->seq = 3;
    r->card = 17;
    strcpy(r->kimariji, "あきの");
    r->location = KR_SIDE_A;
    r->established = true;
    r->has_take = true;
    r->take_player = KR_SIDE_B;
    r->take_how = KR_TAKE_TOUCH;
    r->take_t_us = 91702000;
    r->has_margin = true;
    r->margin_us = 14000;
    r->n_faults = 1;
    r->faults[0] = (kr_rules_fault){KR_SIDE_A, 2u, 91705000, 88};
    r->owed[1] = 2;
    r->send_from = KR_SIDE_B;
    r->send_count = 2;
    r->counts[0] = 18;
    r->counts[1] = 21;
    r->final = true;
    r->confidence = 0.95;
    r->n_evidence = 2;
    strcpy(r->evidence[0], "e41");
    strcpy(r->evidence[1], "e45");
    char *s = kr_json_output_string(&o);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT_PTR_NULL(strchr(s, '\n'));
    cJSON *j = cJSON_Parse(s);
    CU_ASSERT_PTR_NOT_NULL_FATAL(j);
    CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItem(j, "type")->valuestring, "ruling");
    CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItem(j, "kimariji")->valuestring, "あきの");
    CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItem(j, "location")->valuestring, "A");
    cJSON *take = cJSON_GetObjectItem(j, "take");
    CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItem(take, "how")->valuestring, "touch");
    CU_ASSERT_EQUAL(cJSON_GetObjectItem(take, "margin_us")->valueint, 14000);
    cJSON *f = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "faults"), 0);
    CU_ASSERT_STRING_EQUAL(cJSON_GetArrayItem(cJSON_GetObjectItem(f, "territories"), 0)->valuestring, "B");
    CU_ASSERT_EQUAL(cJSON_GetObjectItem(f, "card")->valueint, 88);
    CU_ASSERT_EQUAL(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "send"), "count")->valueint, 2);
    CU_ASSERT_EQUAL(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "counts"), "B")->valueint, 21);
    CU_ASSERT_TRUE(cJSON_IsFalse(cJSON_GetObjectItem(j, "needs_review")));
    CU_ASSERT_EQUAL(cJSON_GetArraySize(cJSON_GetObjectItem(j, "evidence")), 2);
    CU_ASSERT_EQUAL(cJSON_GetArraySize(cJSON_GetObjectItem(j, "voided")), 0);
    cJSON_Delete(j);
    free(s);

    r->has_take = false;
    r->send_from = KR_SIDE_NONE;
    r->location = KR_SIDE_NONE;
    s = kr_json_output_string(&o);
    j = cJSON_Parse(s);
    CU_ASSERT_TRUE(cJSON_IsNull(cJSON_GetObjectItem(j, "take")));
    CU_ASSERT_TRUE(cJSON_IsNull(cJSON_GetObjectItem(j, "send")));
    CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItem(j, "location")->valuestring, "dead");
    cJSON_Delete(j);
    free(s);
}

static void test_match_end_is_written(void)
{
    kr_rules_output o;
    memset(&o, 0, sizeof o);
    o.type = KR_OUT_MATCH_END;
    o.end.winner = KR_SIDE_B;
    o.end.counts[0] = 3;
    o.end.t_us = 1930000000;
    char *s = kr_json_output_string(&o);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    cJSON *j = cJSON_Parse(s);
    CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItem(j, "type")->valuestring, "match_end");
    CU_ASSERT_STRING_EQUAL(cJSON_GetObjectItem(j, "winner")->valuestring, "B");
    CU_ASSERT_EQUAL(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "counts"), "A")->valueint, 3);
    CU_ASSERT_EQUAL((int64_t)cJSON_GetObjectItem(j, "t_us")->valuedouble, 1930000000);
    cJSON_Delete(j);
    free(s);
}

static void test_write_record_ends_with_one_newline(void)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL_FATAL(parse("{\"type\":\"settle\",\"t_us\":5}", &rec), KR_OK);
    CU_ASSERT_EQUAL(kr_json_write_record(f, &rec), KR_OK);
    fclose(f);
    CU_ASSERT_STRING_EQUAL(buf, "{\"type\":\"settle\",\"t_us\":5}\n");
    free(buf);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("json", NULL, NULL);
    CU_add_test(s, "every_record_type_round_trips", test_every_record_type_round_trips);
    CU_add_test(s, "reads_touch_fields_and_defaults", test_reads_touch_fields_and_defaults);
    CU_add_test(s, "malformed_json_is_an_error", test_malformed_json_is_an_error);
    CU_add_test(s, "missing_or_ill_typed_fields_are_errors", test_missing_or_ill_typed_fields_are_errors);
    CU_add_test(s, "unknown_type_is_an_error", test_unknown_type_is_an_error);
    CU_add_test(s, "blank_lines_are_recognised", test_blank_lines_are_recognised);
    CU_add_test(s, "ruling_is_written_with_every_field", test_ruling_is_written_with_every_field);
    CU_add_test(s, "match_end_is_written", test_match_end_is_written);
    CU_add_test(s, "write_record_ends_with_one_newline", test_write_record_ends_with_one_newline);
    CU_basic_set_mode(CU_BRM_NORMAL);
    CU_basic_run_tests();
    unsigned fails = CU_get_number_of_failures();
    CU_cleanup_registry();
    return fails != 0;
}
