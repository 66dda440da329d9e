/*
 * diff: `schema-registry diff OLD NEW`, the change report of two schema files
 * and whether NEW may follow OLD under a compatibility level
 * (docs/evolution.md, "In CI"). Pure compat/: no registry, no database.
 *
 * Contents
 *   1. The command
 *
 * Exit statuses (cmd/cmd.h): 0 compatible under --level, 1 not, 2 bad usage
 * or a file that cannot be read or parsed.
 */
#ifndef CMD_DIFF_H
#define CMD_DIFF_H

/* ---- 1. The command ------------------------------------------------------- */

/* argv[0] is the command's name. */
int cmd_diff(int argc, char **argv);

#endif
