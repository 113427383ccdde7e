/* What the reduce timing programs share: a monotonic clock in milliseconds and the median of
 * repeated runs. The machine is shared, so every program runs its cases interleaved, one after
 * another in each round, and reports medians (and the fastest run) over the rounds. */
#ifndef MEDIABATCH_BENCH_TIMING_H
#define MEDIABATCH_BENCH_TIMING_H

#include <stdlib.h>
#include <time.h>

static inline double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static inline int compare_doubles(const void *a, const void *b) {
    const double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

/* Sorts `times` and returns its median. */
static inline double median_ms(double *times, int count) {
    qsort(times, count, sizeof(double), compare_doubles);
    return count % 2 ? times[count / 2] : (times[count / 2 - 1] + times[count / 2]) / 2;
}

#endif
