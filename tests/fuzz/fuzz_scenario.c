/* fuzz_scenario.c — weft's scenario YAML (weft_scenario_read_zoo), inline
 * parts and files beside it (fuzz_scenario_dir.h), model jobs from a tiny
 * zoo: 0 or an error with a reason; a scenario read is consistent. Inputs
 * naming /dev, /proc, /sys or "../" are skipped (fuzz.h). */
#include "fuzz_scenario_dir.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  fuzz_scenario_dir();
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (fuzz_names_special_file(data, size)) return -1;  /* not added to the corpus */
  const char *path = fuzz_write("scenario.yml", data, size);
  WeftScenario *sc = weft_scenario_create();
  FUZZ_CHECK(sc != NULL, "weft_scenario_create", NULL);
  WeftError err;
  weft_error_clear(&err);
  int rc = weft_scenario_read_zoo(path, fuzz_path("zoo"), sc, &err);
  fuzz_check_result(rc, &err, "weft_scenario_read_zoo");
  if (rc == 0) {
    fuzz_check_scenario(sc);
    WeftSpec spec;
    weft_scenario_spec(sc, &spec);
    FUZZ_CHECK(spec.njobs == sc->njobs && spec.net == &sc->net, "spec borrows the scenario", NULL);
  }
  weft_scenario_free(sc);
  return 0;
}
