/*
 * The look-back's spans (cuda_lookback.cuh, look_back_spans) on statuses
 * set by hand: for every tile of an arena whose tiles below a frontier
 * hold inclusive counts and the rest aggregates, the walk must return the
 * count before the tile, and a span's last tile, past its window, must
 * publish the span's aggregate. The kernels' own runs (emu_test) rarely
 * see a window of aggregates alone on a few blocks; here every walk past
 * the frontier does. Tiles are walked from the last down, so each finds
 * its predecessors as the frontier left them; every span's status is
 * there before (an aggregate above the frontier, else its inclusive
 * count), as it would be once the span's last tile had walked.
 */
#include "cuda_emu.h"

#include "cuda_lookback.cuh"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

extern "C" uint64_t gpt_derive(uint64_t seed, uint64_t a, uint64_t b, uint64_t c, uint64_t d); /* tests/harness.c */

namespace {

using namespace gp_cuda;

struct spans_probe_params {
    lookback::arena a;
    unsigned epoch;
    unsigned long long tiles, tile, own;
    unsigned long long *before; /* lane 0's result */
    unsigned long long *span_tag; /* the span's tag after the walk, before span_done */
};

/* One warp: tile's walk, then what its caller publishes after it. */
void spans_probe_kernel(const spans_probe_params p)
{
    auto read = [](unsigned long long, unsigned long long tag, bool) { return lookback::tag_payload(tag); };
    const unsigned long long b = lookback::look_back_spans(p.a, p.tile, p.epoch, p.tiles, p.own, read);
    if (threadIdx.x == 0) {
        *p.before = b;
        *p.span_tag = *lookback::status_word(p.a, p.tiles + p.tile / lookback::kLookbackSpan, 0);
        lookback::publish_payload(p.a, p.tile, p.epoch, lookback::kInclusive, b + p.own);
        lookback::span_done(p.a, p.tile, p.epoch, p.tiles, b + p.own);
    }
}

const int registered =
    (gp_emu::register_thunk("spans_probe_kernel", gp_emu::call_kernel<spans_probe_params>), 0);

} // namespace

/* Returns the number of wrong counts and span statuses (the first few printed). */
long emu_check_spans(uint64_t seed)
{
    using namespace gp_cuda::lookback;
    /* More than 32 spans a walk, and a partial last one. The spans'
     * statuses after the tiles', whatever GP_LOOKBACK_SPANS says
     * (slots_with_spans follows it): the walk is tested either way. */
    const unsigned long long tiles = 40 * kLookbackSpan + 7;
    const unsigned long long slots = tiles + (tiles + kLookbackSpan - 1) / kLookbackSpan;
    const unsigned long long fronts[] = {1, 2, 31, 32, 33, 70, 64 * 3 + 5, 600, tiles};
    const unsigned epoch = 7;
    const size_t bytes = (arena_bytes(slots) + 255) / 256 * 256; /* aligned_alloc: a multiple of the alignment */
    void *mem = aligned_alloc(256, bytes);
    if (!mem) {
        printf("  spans: no memory for the arena\n");
        return 1;
    }
    long bad = 0, walks = 0, aggregates = 0;
    for (unsigned long long front : fronts) {
        memset(mem, 0, bytes);
        const arena a = arena_at(mem, slots);
        std::vector<unsigned long long> count(tiles), before(tiles + 1, 0);
        for (unsigned long long k = 0; k < tiles; k++) {
            count[k] = gpt_derive(seed, front, k, 0, 0) % 1000;
            before[k + 1] = before[k] + count[k];
        }
        auto tag_at = [&](unsigned long long slot) { return status_word(a, slot, 0); };
        for (unsigned long long k = 0; k < tiles; k++)
            *tag_at(k) = make_tag(epoch, k < front ? kInclusive : kAggregate, k < front ? before[k + 1] : count[k]);
        for (unsigned long long g = 0; g * kLookbackSpan < tiles; g++) {
            const unsigned long long last = (g + 1) * kLookbackSpan - 1, first = g * kLookbackSpan;
            if (last >= tiles) break; /* a partial span has no status: no walk reads it */
            *tag_at(tiles + g) = last < front ? make_tag(epoch, kInclusive, before[last + 1])
                                              : make_tag(epoch, kAggregate, before[last + 1] - before[first]);
        }
        for (unsigned long long k = tiles - 1; k >= 1; k--) {
            const unsigned long long span = k / kLookbackSpan;
            const bool ends_span = k % kLookbackSpan == kLookbackSpan - 1;
            /* The span's last tile walks with its span's status cleared
             * where it publishes one: where its first window, the 32
             * tiles before it, lies past the frontier. */
            const bool republishes = ends_span && k >= kLookbackSpan + front;
            if (republishes) *tag_at(tiles + span) = 0;
            unsigned long long got = ~0ull, span_tag = 0;
            spans_probe_params p = {a, epoch, tiles, k, count[k], &got, &span_tag};
            void *args[] = {&p};
            walks++;
            if (launch(NULL, (const void *)spans_probe_kernel, "spans_probe_kernel", 1, kWarp, args, __FILE__,
                       __LINE__) != GP_STATUS_OK ||
                got != before[k]) {
                if (bad++ < 5)
                    printf("  spans: frontier %llu, tile %llu: %llu before it, expected %llu\n", front, k, got,
                           before[k]);
            }
            /* The walk's span aggregate, then span_done's inclusive count. */
            const unsigned long long first = span * kLookbackSpan;
            if (republishes &&
                (tag_state(span_tag, epoch) != kAggregate || tag_payload(span_tag) != before[k + 1] - before[first])) {
                if (bad++ < 5)
                    printf("  spans: frontier %llu, span %llu: state %u, %llu, expected an aggregate of %llu\n",
                           front, span, tag_state(span_tag, epoch), tag_payload(span_tag),
                           before[k + 1] - before[first]);
            }
            const unsigned long long tag = *tag_at(tiles + span);
            if (ends_span && (tag_state(tag, epoch) != kInclusive || tag_payload(tag) != before[k + 1])) {
                if (bad++ < 5)
                    printf("  spans: frontier %llu, span %llu: state %u, %llu, expected inclusive %llu\n", front,
                           span, tag_state(tag, epoch), tag_payload(tag), before[k + 1]);
            }
            aggregates += republishes;
        }
    }
    free(mem);
    printf("look-back spans: %ld walks over %llu tiles, %zu frontiers; %ld span aggregates published\n", walks,
           tiles, sizeof fronts / sizeof *fronts, aggregates);
    if (aggregates == 0) bad++; /* the check above never ran */
    return bad;
}
