/* test_search.c — unit tests (suite search). */
#include "weft.h"

#include "../test.h"

const TestCase suite_search[] = {
    {0, 0},
};
