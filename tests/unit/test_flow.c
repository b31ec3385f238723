/* test_flow.c — unit tests of the flow suite. */
#include "../test.h"

const TestCase suite_flow[] = {
    {0, 0},
};
