/* SPDX-License-Identifier: Apache-2.0 */
/*
 * No model can kill or wedge acceld: a few hundred mutated real models
 * (tests/fuzz/mutator.h: int32s, bytes and offsets of the flatbuffer
 * changed) go through the real acceld (PrepareModel with XNNPACK or NONE,
 * AllocateTensors, Execute). After each one acceld must still be running,
 * and each run must end within its bound; a mutant may of course be
 * refused. XNNPACK runs inside acceld here (isolate_drivers = plugins), not
 * in its default driver host, so that what the driver must refuse before
 * XNNPACK asserts (runtime/drivers/xnnpack/dataflow.c) is what is tested:
 * in a host an abort would only cost the request.
 *
 * The seed is fixed (ACCELD_MUTATE_SEED overrides it, ACCELD_MUTANTS the
 * count), so a failure names a mutant that `scripts/mutate.sh` replays;
 * the mutant is also saved to ./mutants (the build directory under meson).
 * argv: acceld, accelctl.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "mutator.h"

/* Fixed: a run in CI is the same run on a laptop. */
#define DEFAULT_SEED 0xacce1dull
#define DEFAULT_COUNT 300
/* Models above this size cost seconds per mutant under ASan; the style
 * transfer models take a minute on the reference kernels. */
#define MAX_MODEL_BYTES (1024 * 1024)
static const char *const slow_models[] = { "style_transfer", NULL };

static mut_corpus_t corpus;

static uint64_t env_u64(const char *name, uint64_t def) {
        const char *v = getenv(name);
        return v && *v ? strtoull(v, NULL, 0) : def;
}

START_TEST(test_mutants_never_kill_acceld) {
        harness_daemon_t d;
        uint64_t seed = env_u64("ACCELD_MUTATE_SEED", DEFAULT_SEED);
        uint64_t count = env_u64("ACCELD_MUTANTS", DEFAULT_COUNT);
        uint64_t seen[MUT_HUNG + 1] = { 0 };

        static const char *const args[] = { "--isolate-drivers", "plugins", NULL };
        harness_up_with(&d, args, false);
        for (uint64_t i = 0; i < count; i++) {
                mut_mutant_t m;
                int status;

                ck_assert_int_eq(mut_mutant_make(&corpus, seed, i, &m), 0);
                mut_outcome_t o = mut_run(&m, d.sock, 60000);
                seen[o]++;
                bool died = waitpid(d.pid, &status, WNOHANG) == d.pid;
                if (died || o == MUT_HUNG || o == MUT_CLIENT_ERROR) {
                        (void) mut_mutant_save(&m, "mutants", died ? "death" : "hang", seed, i);
                        if (died)
                                d.pid = 0;
                        ck_abort_msg("mutant %llu of seed %llu (%s: %s) %s; saved in ./mutants",
                                     (unsigned long long) i, (unsigned long long) seed, m.model->name, m.what,
                                     died ? "killed acceld" : mut_outcome_name(o));
                }
                mut_mutant_free(&m);
        }
        /* acceld still answers, and the run reached both ends: refusals
         * and executions (else the mutants tested nothing). */
        ck_assert(mut_daemon_answers(d.sock, 10000));
        printf("mutants %llu: executed %llu, refused %llu, allocate-failed %llu, execute-failed %llu\n",
               (unsigned long long) count, (unsigned long long) seen[MUT_EXECUTED],
               (unsigned long long) seen[MUT_PREPARE_REFUSED], (unsigned long long) seen[MUT_ALLOCATE_FAILED],
               (unsigned long long) seen[MUT_EXECUTE_FAILED]);
        if (count >= 100) {
                ck_assert_uint_gt(seen[MUT_EXECUTED], 0);
                ck_assert_uint_gt(seen[MUT_PREPARE_REFUSED], 0);
        }
        harness_stop(&d);
        harness_cleanup(&d);
}
END_TEST

/* Mutants that killed acceld once (seed, index over this corpus, which is
 * scripts/mutate.sh's with MUTATE_MAX_MODEL_BYTES=1048576 and
 * MUTATE_EXCLUDE=style_transfer), each replayed after its fix. */
static const struct {
        uint64_t seed, index;
} found[] = {
        /* mnist_lstm_int8: an integer LSTM gate whose weights are no
         * constant; its zero-point sums read NULL data (SIGSEGV). */
        { 4202, 924 },
};

START_TEST(test_mutants_found_ones_replay_clean) {
        harness_daemon_t d;
        static const char *const args[] = { "--isolate-drivers", "plugins", NULL };

        harness_up_with(&d, args, false);
        for (size_t k = 0; k < sizeof(found) / sizeof(found[0]); k++) {
                mut_mutant_t m;
                int status;

                ck_assert_int_eq(mut_mutant_make(&corpus, found[k].seed, found[k].index, &m), 0);
                mut_outcome_t o = mut_run(&m, d.sock, 60000);
                bool died = waitpid(d.pid, &status, WNOHANG) == d.pid;
                if (died)
                        d.pid = 0;
                ck_assert_msg(!died && o != MUT_HUNG && o != MUT_CLIENT_ERROR, "mutant %llu of seed %llu (%s: %s) %s",
                              (unsigned long long) found[k].index, (unsigned long long) found[k].seed,
                              m.model->name, m.what, died ? "killed acceld" : mut_outcome_name(o));
                mut_mutant_free(&m);
        }
        ck_assert(mut_daemon_answers(d.sock, 10000));
        harness_stop(&d);
        harness_cleanup(&d);
}
END_TEST

int main(int argc, char **argv) {
        harness_init(argc, argv);
        const char *shared = getenv("ACCELD_SHARED_DIR");
        char dir[4096];
        (void) snprintf(dir, sizeof(dir), "%s/models", shared ? shared : "../shared");
        if (mut_corpus_load(&corpus, dir, MAX_MODEL_BYTES, slow_models) < 0) {
                printf("SKIP: no models in %s\n", dir);
                return 77;
        }
        Suite *s = suite_create("acceld-mutants");
        TCase *tc = tcase_create("mutants");
        tcase_set_timeout(tc, 1200);
        tcase_add_test(tc, test_mutants_found_ones_replay_clean);
        tcase_add_test(tc, test_mutants_never_kill_acceld);
        suite_add_tcase(s, tc);
        SRunner *sr = srunner_create(s);
        srunner_run_all(sr, CK_NORMAL);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        mut_corpus_free(&corpus);
        return failed ? 1 : 0;
}
