/* test_zoo.c — unit tests (suite zoo). */
#include "weft.h"

#include "../test.h"

const TestCase suite_zoo[] = {
    {0, 0},
};
