/* fuzz_zoo_devices.c — a zoo's devices.yml (weft_zoo_devices and
 * weft_zoo_device): 0 or an error with a reason; both calls agree; every
 * device read has finite positive figures. */
#include <string.h>

#include "fuzz.h"

#define MAX_DEVICES 16

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_write("devices.yml", data, size);
  const char *zoo = fuzz_dir();
  WeftDevice devs[MAX_DEVICES];
  int count = -1;
  WeftError err;
  weft_error_clear(&err);
  int rc = weft_zoo_devices(zoo, devs, MAX_DEVICES, &count, &err);
  fuzz_check_result(rc, &err, "weft_zoo_devices");
  if (rc) {
    /* Every device is checked by either call: a bad file fails both. */
    WeftDevice one;
    WeftError err2;
    weft_error_clear(&err2);
    int rc2 = weft_zoo_device(zoo, "a100", &one, &err2);
    fuzz_check_result(rc2, &err2, "weft_zoo_device");
    FUZZ_CHECK(rc2 == rc, "weft_zoo_device fails as weft_zoo_devices", &err2);
    return 0;
  }
  FUZZ_CHECK(count >= 1, "device count", NULL);
  int n = count < MAX_DEVICES ? count : MAX_DEVICES;
  for (int i = 0; i < n; i++) {
    const WeftDevice *d = &devs[i];
    FUZZ_CHECK(memchr(d->name, '\0', sizeof d->name) && d->name[0], "device name", NULL);
    FUZZ_CHECK(memchr(d->title, '\0', sizeof d->title), "device title", NULL);
    FUZZ_CHECK(memchr(d->source, '\0', sizeof d->source), "device source", NULL);
    FUZZ_CHECK(fuzz_finite(d->peak_flops) && d->peak_flops > 0, "peak_flops", NULL);
    FUZZ_CHECK(fuzz_finite(d->hbm_bytes) && d->hbm_bytes > 0, "hbm_bytes", NULL);
    FUZZ_CHECK(fuzz_finite(d->hbm_bytes_per_s) && d->hbm_bytes_per_s > 0, "hbm_bytes_per_s",
               NULL);
    /* optional: 0 (not given) or a finite figure > 0 */
    FUZZ_CHECK(fuzz_finite(d->peak_fp4_flops) && d->peak_fp4_flops >= 0, "peak_fp4_flops", NULL);
    FUZZ_CHECK(fuzz_finite(d->power_w) && d->power_w >= 0, "power_w", NULL);
    /* Looked up by name: the first device of that name. */
    WeftDevice one;
    weft_error_clear(&err);
    rc = weft_zoo_device(zoo, d->name, &one, &err);
    FUZZ_CHECK(rc == 0, "a listed device is found by name", &err);
    int first = i;
    for (int j = 0; j < i; j++)
      if (!strcmp(devs[j].name, d->name)) {
        first = j;
        break;
      }
    FUZZ_CHECK(!memcmp(&one, &devs[first], sizeof one), "lookup gives the listed device", NULL);
  }
  return 0;
}
