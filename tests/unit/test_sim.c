/* test_sim.c — unit tests of the sim suite. */
#include "../test.h"

const TestCase suite_sim[] = {
    {0, 0},
};
