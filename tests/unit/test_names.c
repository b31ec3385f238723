/* test_names.c — the generator's entry names and policy line, written by
 * hand (gen_names.c), against snprintf with the same formats: equal text,
 * cut alike at every buffer size. */
#include <stdio.h>
#include <string.h>

#include "../test.h"
#include "model/gen_names.h"

static void nm_like_snprintf(void) {
  static const int nums[] = {1, 7, 10, 96, 123, 9999, 100000, -5, 2147483647};
  const int nn = (int)(sizeof nums / sizeof nums[0]);
  int bad = 0;
  for (int a = 0; a < nn; a++)
    for (int b = 0; b < nn; b++)
      for (size_t n = 1; n <= 64; n++) {
        char got[80], want[80];
        memset(got, 'x', sizeof got);
        weft_gen_range_name(got, n, nums[a], nums[b], "attn");
        if (nums[a] == nums[b])
          snprintf(want, n, "L%d.%s", nums[a], "attn");
        else
          snprintf(want, n, "L%d-%d.%s", nums[a], nums[b], "attn");
        bad += strcmp(got, want) != 0;
        weft_gen_policy(got, n, nums[a]);
        snprintf(want, n, "HYBRID_TRANSFORMER model_parallel_NPU_group: %d", nums[a]);
        bad += strcmp(got, want) != 0;
      }
  CHECK_EQ_INT(bad, 0);
  char s[64];
  weft_gen_range_name(s, sizeof s, 1, 48, "mlp");
  CHECK(!strcmp(s, "L1-48.mlp"));
  weft_gen_range_name(s, sizeof s, 97, 97, "moe");
  CHECK(!strcmp(s, "L97.moe"));
}

const TestCase suite_names[] = {
    {"names/like_snprintf", nm_like_snprintf},
    {0, 0},
};
