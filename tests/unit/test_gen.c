/* test_gen.c — unit tests (suite gen). */
#include "weft.h"

#include "../test.h"

const TestCase suite_gen[] = {
    {0, 0},
};
