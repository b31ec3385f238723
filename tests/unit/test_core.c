/* test_core.c — error table and formatting. */
#include <string.h>

#include "../test.h"
#include "weft.h"

static void error_table_round_trip(void) {
  CHECK(strcmp(weft_strerror(WEFT_OK), "ok") == 0);
  CHECK(strcmp(weft_strerror(WEFT_ENOMEM), "out of memory") == 0);
  CHECK(strcmp(weft_strerror(12345), "unknown error") == 0);
  CHECK(strcmp(weft_status_name(WEFT_STATUS_INFEASIBLE), "infeasible") == 0);
}

static void error_format_with_place(void) {
  WeftError e;
  char buf[600];
  weft_error_clear(&e);
  CHECK_EQ_INT(weft_error_set(&e, WEFT_EINPUT, "net.yml", 4, 12, "NpusCount", "must be > 1, got %d", 1),
               WEFT_EINPUT);
  CHECK(strcmp(weft_error_format(&e, buf, sizeof buf), "net.yml:4:12: must be > 1, got 1") == 0);
  weft_error_set(&e, WEFT_EINPUT, "", 0, 0, NULL, "bad");
  CHECK(strcmp(weft_error_format(&e, buf, sizeof buf), "bad") == 0);
  weft_error_set(&e, WEFT_EIO, "x.txt", 0, 0, NULL, "no such file");
  CHECK(strcmp(weft_error_format(&e, buf, sizeof buf), "x.txt: no such file") == 0);
}

const TestCase suite_core[] = {
    {"core/error_table", error_table_round_trip},
    {"core/error_format", error_format_with_place},
    {0, 0},
};
