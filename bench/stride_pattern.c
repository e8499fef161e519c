// How much of a full-frame read does reading every fourth row cost on this machine, with no Swift
// and no arithmetic to speak of? Each frame's rows are summed with AVX2 SAD (well under memory
// speed) over cold frames (at least 64, and about 512 MiB of them, far beyond the 32 MiB last-level
// cache), four ways:
//   full        every row, one after another;
//   stride 4    every fourth row (each read whole: every cache line of it);
//   x8+pf       every fourth row, eight of them side by side, each line read with a prefetch of the
//               same line eight sampled rows ahead (what FrameSampler's strided read does);
//   quarter     the first quarter of the rows, one after another: the same bytes as stride 4.
// If memory bandwidth alone set the cost, every way but full would cost about 0.25 of full.
//
//   cc -O3 -mavx2 -o /tmp/stride_pattern bench/stride_pattern.c && /tmp/stride_pattern
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

// The sum of plane_sum, eight sampled rows side by side, prefetching eight sampled rows ahead.
static uint64_t plane_sum8(const uint8_t *p, int rows, int bytes, int step) {
    __m256i acc = _mm256_setzero_si256(), zero = _mm256_setzero_si256();
    int r = 0;
    for (; r + 7 * step < rows; r += 8 * step) {
        for (int i = 0; i < bytes; i += 32) {
            for (int j = 0; j < 8; j++) {
                const uint8_t *row = p + (size_t)(r + j * step) * bytes;
                // Eight sampled rows ahead, but not past the plane (as FrameSampler).
                if ((i & 63) == 0 && r + (j + 8) * step < rows)
                    __builtin_prefetch(row + (size_t)8 * step * bytes + i, 0, 2);
                acc = _mm256_add_epi64(acc, _mm256_sad_epu8(_mm256_loadu_si256((const __m256i *)(row + i)), zero));
            }
        }
    }
    uint64_t lanes[4];
    _mm256_storeu_si256((__m256i *)lanes, acc);
    uint64_t rest = 0;
    for (; r < rows; r += step)
        for (int i = 0; i < bytes; i++) rest += p[(size_t)r * bytes + i];
    return lanes[0] + lanes[1] + lanes[2] + lanes[3] + rest;
}

// Sum of the bytes of `rows` rows of `bytes` bytes (tightly packed), every `step`-th row.
static uint64_t plane_sum(const uint8_t *p, int rows, int bytes, int step) {
    __m256i acc = _mm256_setzero_si256(), zero = _mm256_setzero_si256();
    for (int r = 0; r < rows; r += step) {
        const uint8_t *row = p + (size_t)r * bytes;
        for (int i = 0; i < bytes; i += 32)
            acc = _mm256_add_epi64(acc, _mm256_sad_epu8(_mm256_loadu_si256((const __m256i *)(row + i)), zero));
    }
    uint64_t lanes[4];
    _mm256_storeu_si256((__m256i *)lanes, acc);
    return lanes[0] + lanes[1] + lanes[2] + lanes[3];
}

int main(void) {
    const struct { const char *name; int width, height, bgra; } formats[] = {
        {"BGRA 640x480", 640, 480, 1}, {"NV12 640x480", 640, 480, 0},
        {"BGRA 1920x1080", 1920, 1080, 1}, {"NV12 1920x1080", 1920, 1080, 0},
    };
    for (int k = 0; k < 4; k++) {
        int w = formats[k].width, h = formats[k].height, bgra = formats[k].bgra;
        size_t frame = bgra ? (size_t)w * h * 4 : (size_t)w * h * 3 / 2;
        int n = (int)((512ul << 20) / frame);
        if (n < 64) n = 64;
        uint8_t *pool = aligned_alloc(4096, (size_t)n * frame);
        if (!pool) return 1;
        for (size_t i = 0; i < (size_t)n * frame; i++) pool[i] = (uint8_t)(i * 7);
        double best[4] = {1e300, 1e300, 1e300, 1e300};
        uint64_t sink = 0;
        for (int round = 0; round < 7; round++) {
            for (int mode = 0; mode < 4; mode++) {
                double t0 = now_ns();
                for (int f = 0; f < n; f++) {
                    const uint8_t *p = pool + (size_t)f * frame;
                    int step = mode == 0 || mode == 3 ? 1 : 4;
                    int rows = mode == 3 ? h / 4 : h;
                    uint64_t (*sum)(const uint8_t *, int, int, int) = mode == 2 ? plane_sum8 : plane_sum;
                    if (bgra) {
                        sink += sum(p, rows, w * 4, step);
                    } else {
                        sink += sum(p, rows, w, step);
                        sink += sum(p + (size_t)w * h, rows / 2, w, step);
                    }
                }
                double t = (now_ns() - t0) / n;
                if (t < best[mode]) best[mode] = t;
            }
        }
        printf("%-15s full %6.1f us; as a fraction of it: stride 4 %.3f, x8+pf %.3f, quarter %.3f%s\n",
               formats[k].name, best[0] / 1e3, best[1] / best[0], best[2] / best[0], best[3] / best[0],
               sink == 42 ? " " : "");
        free(pool);
    }
    return 0;
}
