/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of daemon/core/config.c: the settings table, INI and flags. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include <check.h>

#include "daemon-config.h"

static const char *packaged_config;     /* argv[1]: packaging/acceld.conf */

static daemon_config_t c;

static void setup(void) {
        daemon_config_init(&c);
}

static void teardown(void) {
        daemon_config_done(&c);
}

START_TEST(test_config_defaults) {
        ck_assert_ptr_null(c.socket_path);
        ck_assert_ptr_null(c.state_dir);
        ck_assert_uint_eq(c.max_frame_bytes, 64u * 1024 * 1024);
        ck_assert_uint_eq(c.max_connections, 1024);
        ck_assert_uint_eq(c.max_in_flight, 64);
        ck_assert_uint_eq(c.max_output_bytes, 128u * 1024 * 1024);
        ck_assert_uint_eq(c.socket_mode, 0660);
        ck_assert_uint_eq(c.shutdown_timeout_ms, 10000);
        ck_assert_int_eq(c.log_level, LOG_INFO);
        ck_assert_int_eq(c.log_target, DAEMON_LOG_TARGET_AUTO);
}
END_TEST

START_TEST(test_config_set_numbers_with_suffixes_and_bases) {
        ck_assert_int_eq(daemon_config_set(&c, "max_frame_bytes", "8K"), 0);
        ck_assert_uint_eq(c.max_frame_bytes, 8192);
        ck_assert_int_eq(daemon_config_set(&c, "max_frame_bytes", "2M"), 0);
        ck_assert_uint_eq(c.max_frame_bytes, 2u * 1024 * 1024);
        ck_assert_int_eq(daemon_config_set(&c, "max_connections", "0x10"), 0);
        ck_assert_uint_eq(c.max_connections, 16);
        ck_assert_int_eq(daemon_config_set(&c, "socket_mode", "0600"), 0);
        ck_assert_uint_eq(c.socket_mode, 0600);
        ck_assert_int_eq(daemon_config_set(&c, "max-in-flight", " 9 "), 0);
        ck_assert_uint_eq(c.max_in_flight, 9);
}
END_TEST

START_TEST(test_config_set_rejects_bad_values_unchanged) {
        ck_assert_int_eq(daemon_config_set(&c, "max_frame_bytes", "12"), -ERANGE);
        ck_assert_int_eq(daemon_config_set(&c, "max_frame_bytes", "2G"), -ERANGE);
        ck_assert_int_eq(daemon_config_set(&c, "max_connections", "-1"), -EINVAL);
        ck_assert_int_eq(daemon_config_set(&c, "max_connections", "12abc"), -EINVAL);
        ck_assert_int_eq(daemon_config_set(&c, "max_connections", ""), -EINVAL);
        ck_assert_int_eq(daemon_config_set(&c, "max_connections", "99999999999999999999999"), -ERANGE);
        ck_assert_int_eq(daemon_config_set(&c, "socket_mode", "01777"), -ERANGE);
        ck_assert_int_eq(daemon_config_set(&c, "log_level", "loud"), -EINVAL);
        /* An empty string unsets a string setting (back to its default). */
        ck_assert_int_eq(daemon_config_set(&c, "allowed_uids", "0"), 0);
        ck_assert_int_eq(daemon_config_set(&c, "allowed_uids", ""), 0);
        ck_assert_ptr_null(c.allowed_uids);
        ck_assert_int_eq(daemon_config_set(&c, "no_such_setting", "1"), -ENOENT);
        ck_assert_int_eq(daemon_config_set(NULL, "socket", "x"), -EINVAL);
        ck_assert_uint_eq(c.max_frame_bytes, 64u * 1024 * 1024);
        ck_assert_uint_eq(c.max_connections, 1024);
        ck_assert_uint_eq(c.socket_mode, 0660);
        ck_assert_int_eq(c.log_level, LOG_INFO);
}
END_TEST

START_TEST(test_config_set_enums_and_strings) {
        ck_assert_int_eq(daemon_config_set(&c, "log_level", "debug"), 0);
        ck_assert_int_eq(c.log_level, LOG_DEBUG);
        ck_assert_int_eq(daemon_config_set(&c, "log_level", "WARNING"), 0);
        ck_assert_int_eq(c.log_level, LOG_WARNING);
        ck_assert_int_eq(daemon_config_set(&c, "log_level", "error"), 0);
        ck_assert_int_eq(c.log_level, LOG_ERR);
        ck_assert_int_eq(daemon_config_set(&c, "log_target", "journal"), 0);
        ck_assert_int_eq(c.log_target, DAEMON_LOG_TARGET_JOURNAL);
        ck_assert_int_eq(daemon_config_set(&c, "socket", "/tmp/a.sock"), 0);
        ck_assert_int_eq(daemon_config_set(&c, "socket", "/tmp/b.sock"), 0);
        ck_assert_str_eq(c.socket_path, "/tmp/b.sock");
}
END_TEST

START_TEST(test_config_load_string_sections_and_comments) {
        int line = 0;
        char err[200];

        ck_assert_int_eq(daemon_config_load_string(&c,
                                                   "# comment\n"
                                                   "max_connections = 3\n"
                                                   "[acceld]\n"
                                                   "; another comment\n"
                                                   "state_dir = /srv/acceld\n",
                                                   &line, err, sizeof(err)),
                         0);
        ck_assert_uint_eq(c.max_connections, 3);
        ck_assert_str_eq(c.state_dir, "/srv/acceld");
}
END_TEST

START_TEST(test_config_load_string_reports_first_error_line) {
        int line = 0;
        char err[200] = "";

        ck_assert_int_eq(daemon_config_load_string(&c, "[acceld]\nmax_connections = 2\nbogus = 1\n"
                                                       "max_in_flight = 0\n",
                                                   &line, err, sizeof(err)),
                         -ENOENT);
        ck_assert_int_eq(line, 3);
        ck_assert_ptr_nonnull(strstr(err, "bogus"));
        ck_assert_uint_eq(c.max_connections, 2);

        line = 0;
        ck_assert_int_eq(daemon_config_load_string(&c, "[other]\nmax_connections = 4\n", &line, err,
                                                   sizeof(err)),
                         -ENOENT);
        ck_assert_int_eq(line, 2);

        line = 0;
        ck_assert_int_eq(daemon_config_load_string(&c, "max_in_flight = 0\n", &line, err, sizeof(err)),
                         -ERANGE);
        ck_assert_int_eq(line, 1);
        ck_assert_ptr_nonnull(strstr(err, "1..4096"));

        line = 0;
        ck_assert_int_eq(daemon_config_load_string(&c, "\nthis line has no equals sign\n", &line, err,
                                                   sizeof(err)),
                         -EINVAL);
        ck_assert_int_eq(line, 2);
}
END_TEST

START_TEST(test_config_load_file_missing_is_enoent) {
        ck_assert_int_eq(daemon_config_load_file(&c, "/nonexistent/acceld.conf", NULL, NULL, 0), -ENOENT);
}
END_TEST

static int from_args(const char *const *argv, daemon_args_t *args, const char *def, char *err) {
        int argc = 0;

        while (argv[argc])
                argc++;
        return daemon_config_from_args(&c, args, argc, (char **) argv, def, err, 256);
}

static char *temp_config(const char *text) {
        char *path = strdup("/tmp/acceld-config-XXXXXX");
        int fd;

        ck_assert_ptr_nonnull(path);
        fd = mkstemp(path);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t) strlen(text));
        ck_assert_int_eq(close(fd), 0);
        return path;
}

START_TEST(test_config_flags_override_file) {
        char *path = temp_config("max_connections = 7\nmax_in_flight = 5\nlog_level = debug\n");
        const char *argv[] = { "acceld", "--max-connections", "9", "--config", path, "--log-level=err",
                               "--foreground", NULL };
        daemon_args_t args;
        char err[256] = "";

        ck_assert_msg(from_args(argv, &args, NULL, err) == 0, "%s", err);
        ck_assert_uint_eq(c.max_connections, 9);        /* flag before --config still wins */
        ck_assert_uint_eq(c.max_in_flight, 5);          /* from the file */
        ck_assert_int_eq(c.log_level, LOG_ERR);         /* --name=value form */
        ck_assert(args.foreground);
        ck_assert(args.config_explicit);
        ck_assert_str_eq(args.config_path, path);
        (void) unlink(path);
        free(path);
}
END_TEST

START_TEST(test_config_default_file_used_only_if_present) {
        char *path = temp_config("max_in_flight = 11\n");
        const char *argv[] = { "acceld", NULL };
        daemon_args_t args;
        char err[256] = "";

        ck_assert_int_eq(from_args(argv, &args, "/nonexistent/acceld.conf", err), 0);
        ck_assert_ptr_null(args.config_path);
        ck_assert_uint_eq(c.max_in_flight, 64);
        ck_assert_int_eq(from_args(argv, &args, path, err), 0);
        ck_assert_str_eq(args.config_path, path);
        ck_assert(!args.config_explicit);
        ck_assert_uint_eq(c.max_in_flight, 11);
        (void) unlink(path);
        free(path);
}
END_TEST

START_TEST(test_config_explicit_missing_file_fails) {
        const char *argv[] = { "acceld", "--config", "/nonexistent/acceld.conf", NULL };
        daemon_args_t args;
        char err[256] = "";

        ck_assert_int_eq(from_args(argv, &args, NULL, err), -ENOENT);
        ck_assert_ptr_nonnull(strstr(err, "/nonexistent/acceld.conf"));
}
END_TEST

START_TEST(test_config_usage_errors) {
        daemon_args_t args;
        char err[256];
        const char *unknown[] = { "acceld", "--frobnicate", "1", NULL };
        const char *missing[] = { "acceld", "--socket", NULL };
        const char *positional[] = { "acceld", "extra", NULL };
        const char *switch_value[] = { "acceld", "--foreground=yes", NULL };
        const char *range[] = { "acceld", "--max-in-flight", "0", NULL };

        ck_assert_int_eq(from_args(unknown, &args, NULL, err), -EINVAL);
        ck_assert_ptr_nonnull(strstr(err, "--frobnicate"));
        ck_assert_int_eq(from_args(missing, &args, NULL, err), -EINVAL);
        ck_assert_int_eq(from_args(positional, &args, NULL, err), -EINVAL);
        ck_assert_int_eq(from_args(switch_value, &args, NULL, err), -EINVAL);
        ck_assert_int_eq(from_args(range, &args, NULL, err), -ERANGE);
}
END_TEST

START_TEST(test_config_help_and_version_skip_the_file) {
        const char *argv[] = { "acceld", "--config", "/nonexistent", "--help", NULL };
        const char *argv2[] = { "acceld", "--version", NULL };
        daemon_args_t args;
        char err[256];

        ck_assert_int_eq(from_args(argv, &args, NULL, err), 0);
        ck_assert(args.help);
        ck_assert_int_eq(from_args(argv2, &args, NULL, err), 0);
        ck_assert(args.version);
}
END_TEST

START_TEST(test_config_resolve_paths_root_and_user) {
        daemon_config_t u;

        ck_assert_int_eq(daemon_config_resolve_paths(&c, 0), 0);
        ck_assert_str_eq(c.socket_path, "/run/acceld/acceld.sock");
        ck_assert_str_eq(c.state_dir, "/var/lib/acceld");

        daemon_config_init(&u);
        ck_assert_int_eq(setenv("XDG_RUNTIME_DIR", "/run/user/1000", 1), 0);
        ck_assert_int_eq(setenv("XDG_STATE_HOME", "/home/u/.state", 1), 0);
        ck_assert_int_eq(daemon_config_resolve_paths(&u, 1000), 0);
        ck_assert_str_eq(u.socket_path, "/run/user/1000/acceld.sock");
        ck_assert_str_eq(u.state_dir, "/home/u/.state/acceld");
        daemon_config_done(&u);

        daemon_config_init(&u);
        ck_assert_int_eq(unsetenv("XDG_STATE_HOME"), 0);
        ck_assert_int_eq(setenv("HOME", "/home/u", 1), 0);
        ck_assert_int_eq(daemon_config_resolve_paths(&u, 1000), 0);
        ck_assert_str_eq(u.state_dir, "/home/u/.local/state/acceld");
        daemon_config_done(&u);

        /* an explicit value is kept */
        daemon_config_init(&u);
        ck_assert_int_eq(daemon_config_set(&u, "socket", "/x.sock"), 0);
        ck_assert_int_eq(daemon_config_resolve_paths(&u, 1000), 0);
        ck_assert_str_eq(u.socket_path, "/x.sock");
        daemon_config_done(&u);

        daemon_config_init(&u);
        ck_assert_int_eq(unsetenv("XDG_RUNTIME_DIR"), 0);
        ck_assert_int_eq(daemon_config_resolve_paths(&u, 1000), -ENXIO);
        daemon_config_done(&u);

        /* systemd's RuntimeDirectory=/StateDirectory= (the packaged unit,
         * User=acceld) win over the per-user defaults, the first of a list */
        daemon_config_init(&u);
        ck_assert_int_eq(setenv("RUNTIME_DIRECTORY", "/run/acceld", 1), 0);
        ck_assert_int_eq(setenv("STATE_DIRECTORY", "/var/lib/acceld:/var/lib/other", 1), 0);
        ck_assert_int_eq(daemon_config_resolve_paths(&u, 1000), 0);
        ck_assert_str_eq(u.socket_path, "/run/acceld/acceld.sock");
        ck_assert_str_eq(u.state_dir, "/var/lib/acceld");
        daemon_config_done(&u);

        /* ... but not over explicit settings */
        daemon_config_init(&u);
        ck_assert_int_eq(daemon_config_set(&u, "state_dir", "/srv/s"), 0);
        ck_assert_int_eq(daemon_config_resolve_paths(&u, 1000), 0);
        ck_assert_str_eq(u.state_dir, "/srv/s");
        daemon_config_done(&u);

        /* a relative state directory becomes absolute, from the working
         * directory at start (the sandbox of workers and hosts needs it) */
        daemon_config_init(&u);
        ck_assert_int_eq(daemon_config_set(&u, "state_dir", "var/state"), 0);
        ck_assert_int_eq(daemon_config_resolve_paths(&u, 1000), 0);
        char *cwd = getcwd(NULL, 0), *want = NULL;
        ck_assert_ptr_nonnull(cwd);
        ck_assert_int_ge(asprintf(&want, "%s/var/state", cwd), 0);
        ck_assert_str_eq(u.state_dir, want);
        free(want);
        free(cwd);
        daemon_config_done(&u);
        ck_assert_int_eq(unsetenv("RUNTIME_DIRECTORY"), 0);
        ck_assert_int_eq(unsetenv("STATE_DIRECTORY"), 0);
}
END_TEST

START_TEST(test_config_dump_round_trips) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        daemon_config_t back;
        int line = 0;

        ck_assert_ptr_nonnull(f);
        ck_assert_int_eq(daemon_config_set(&c, "max_connections", "77"), 0);
        ck_assert_int_eq(daemon_config_set(&c, "socket_mode", "0640"), 0);
        ck_assert_int_eq(daemon_config_set(&c, "state_dir", "/srv/x"), 0);
        ck_assert_int_eq(daemon_config_set(&c, "log_target", "stderr"), 0);
        daemon_config_dump(&c, f);
        ck_assert_int_eq(fclose(f), 0);

        daemon_config_init(&back);
        ck_assert_int_eq(daemon_config_load_string(&back, buf, &line, NULL, 0), 0);
        ck_assert_uint_eq(back.max_connections, 77);
        ck_assert_uint_eq(back.socket_mode, 0640);
        ck_assert_str_eq(back.state_dir, "/srv/x");
        ck_assert_ptr_null(back.socket_path);
        ck_assert_int_eq(back.log_target, DAEMON_LOG_TARGET_STDERR);
        ck_assert_uint_eq(back.max_frame_bytes, c.max_frame_bytes);
        daemon_config_done(&back);
        free(buf);
}
END_TEST

/* The shipped acceld.conf lists every key with its default, commented out:
 * uncommenting them all must give exactly the built-in defaults. */
START_TEST(test_config_packaged_file_documents_defaults) {
        FILE *f;
        char line[512], *text = NULL;
        size_t len = 0;
        FILE *out = open_memstream(&text, &len);
        int n_keys = 0, r, err_line = 0;
        char err[256] = "";
        daemon_config_t def;

        ck_assert_msg(packaged_config != NULL, "pass packaging/acceld.conf as argv[1]");
        f = fopen(packaged_config, "re");
        ck_assert_msg(f != NULL, "cannot open %s", packaged_config);
        ck_assert_ptr_nonnull(out);
        while (fgets(line, sizeof(line), f)) {
                /* "#key = value": a commented setting */
                if (line[0] == '#' && line[1] >= 'a' && line[1] <= 'z' && strchr(line, '=')) {
                        fputs(line + 1, out);
                        n_keys++;
                } else
                        fputs(line, out);
        }
        (void) fclose(f);
        ck_assert_int_eq(fclose(out), 0);

        r = daemon_config_load_string(&c, text, &err_line, err, sizeof(err));
        ck_assert_msg(r == 0, "line %d: %s", err_line, err);
        ck_assert_int_eq(n_keys, (int) daemon_config_key_count());
        daemon_config_init(&def);
        ck_assert_uint_eq(c.max_frame_bytes, def.max_frame_bytes);
        ck_assert_uint_eq(c.max_connections, def.max_connections);
        ck_assert_uint_eq(c.max_in_flight, def.max_in_flight);
        ck_assert_uint_eq(c.max_output_bytes, def.max_output_bytes);
        ck_assert_uint_eq(c.socket_mode, def.socket_mode);
        ck_assert_uint_eq(c.shutdown_timeout_ms, def.shutdown_timeout_ms);
        ck_assert_int_eq(c.log_level, def.log_level);
        ck_assert_int_eq(c.log_target, def.log_target);
        ck_assert_str_eq(c.socket_path, "/run/acceld/acceld.sock");
        ck_assert_str_eq(c.state_dir, "/var/lib/acceld");
        daemon_config_done(&def);
        free(text);
}
END_TEST

START_TEST(test_log_level_names) {
        ck_assert_int_eq(daemon_log_level_from_string("info"), LOG_INFO);
        ck_assert_int_eq(daemon_log_level_from_string("warn"), LOG_WARNING);
        ck_assert_int_eq(daemon_log_level_from_string("nope"), -EINVAL);
        ck_assert_int_eq(daemon_log_level_from_string(NULL), -EINVAL);
        ck_assert_str_eq(daemon_log_level_to_string(LOG_DEBUG), "debug");
        ck_assert_str_eq(daemon_log_level_to_string(42), "unknown");
}
END_TEST

static Suite *config_suite(void) {
        Suite *s = suite_create("daemon-config");
        TCase *tc = tcase_create("config");

        tcase_add_checked_fixture(tc, setup, teardown);
        tcase_add_test(tc, test_config_defaults);
        tcase_add_test(tc, test_config_set_numbers_with_suffixes_and_bases);
        tcase_add_test(tc, test_config_set_rejects_bad_values_unchanged);
        tcase_add_test(tc, test_config_set_enums_and_strings);
        tcase_add_test(tc, test_config_load_string_sections_and_comments);
        tcase_add_test(tc, test_config_load_string_reports_first_error_line);
        tcase_add_test(tc, test_config_load_file_missing_is_enoent);
        tcase_add_test(tc, test_config_flags_override_file);
        tcase_add_test(tc, test_config_default_file_used_only_if_present);
        tcase_add_test(tc, test_config_explicit_missing_file_fails);
        tcase_add_test(tc, test_config_usage_errors);
        tcase_add_test(tc, test_config_help_and_version_skip_the_file);
        tcase_add_test(tc, test_config_resolve_paths_root_and_user);
        tcase_add_test(tc, test_config_dump_round_trips);
        tcase_add_test(tc, test_config_packaged_file_documents_defaults);
        tcase_add_test(tc, test_log_level_names);
        suite_add_tcase(s, tc);
        return s;
}

int main(int argc, char **argv) {
        SRunner *sr;
        int failed;

        packaged_config = argc > 1 ? argv[1] : NULL;
        sr = srunner_create(config_suite());
        srunner_run_all(sr, CK_NORMAL);
        failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
