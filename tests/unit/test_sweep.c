/* test_sweep.c — unit tests (suite sweep). */
#include "weft.h"

#include "../test.h"

const TestCase suite_sweep[] = {
    {0, 0},
};
