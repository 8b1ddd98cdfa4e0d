/* cli_cluster.h -- redis-cli --cluster: the cluster manager's subcommands
 * (create, check, info, fix, reshard, rebalance, add-node, del-node, call,
 * set-timeout, import, backup, help) and their --cluster-* options.
 *
 * The options are collected while redis-cli parses its command line
 * (cliClusterParseOption), the subcommand runs once the connection options
 * are known (cliClusterMode). Output and exit statuses are Redis 7.0.15's
 * redis-cli's; see cli_cluster.c for the few places that differ.
 */
#ifndef CLI_CLUSTER_H
#define CLI_CLUSTER_H

/* 1 when argv[*i] is a --cluster option (consumed, *i moved past its
 * values); 0 when it is something else. Exits on a malformed option as
 * Redis's tool does. */
int cliClusterParseOption(int argc, char **argv, int *i);
/* 1 once --cluster <subcommand> was given. */
int cliClusterWanted(void);
/* A positional argument seen after the options: the subcommand's
 * arguments when --cluster named none. Returns how many were taken. */
int cliClusterTakeArgs(int argc, char **argv, int i);
/* --cluster-from-askpass: the import source's password, asked once the
 * options are read (after --askpass's question, as Redis's tool asks). */
void cliClusterAskPasswords(void);
/* Runs the subcommand; the process exit status. */
int cliClusterMode(void);

#endif
