// The entry point of isoscope_bench (every tests/bench/*.cpp registers its benchmarks).
#include <benchmark/benchmark.h>

BENCHMARK_MAIN();
