/* cli_cluster_fix.c -- redis-cli --cluster fix (open slots, uncovered
 * slots, slots with several owners), import and backup.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_cluster_int.h"

static int notYet(const char *what) {
    fprintf(stderr, "[ERR] --cluster %s is not implemented by this redis-cli yet\n", what);
    return 0;
}

int ccCmdImport(int argc, char **argv) {
    (void)argc;
    (void)argv;
    return notYet("import");
}

int ccCmdBackup(int argc, char **argv) {
    (void)argc;
    (void)argv;
    return notYet("backup");
}

int ccFixOpenSlot(int slot) {
    (void)slot;
    return notYet("fix (open slots)");
}

int ccFixSlotsCoverage(unsigned char *all) {
    (void)all;
    return notYet("fix (slots coverage)");
}

int ccFixMultipleOwners(int slot, ccNode **owners, int count) {
    (void)slot;
    (void)owners;
    (void)count;
    return notYet("fix (multiple owners)");
}
