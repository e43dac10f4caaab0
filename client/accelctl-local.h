/* SPDX-License-Identifier: Apache-2.0 */
/*
 * accelctl subcommands that work without a daemon, on the in-process
 * runtime: `inspect MODEL` and `run --local MODEL ...`. argv[0] is the
 * subcommand name. Each returns the process exit code (0 ok, 1 failure,
 * 2 usage error) after printing its output or error.
 */
#pragma once

int accelctl_local_inspect(int argc, char **argv);
int accelctl_local_run(int argc, char **argv);
