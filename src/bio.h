/* bio.h -- the background I/O thread (bio.c): fsync and close off the event loop. */
#ifndef BIO_H
#define BIO_H

#define BIO_JOB_FSYNC 0
#define BIO_JOB_CLOSE 1

void bioSubmitFsync(int fd, int (*fsync_fn)(int fd));
void bioSubmitClose(int fd);
unsigned long bioPendingFsyncs(void);
void bioDrain(void);
int bioLastFsyncErrno(void);
void bioFsyncStats(long long *calls, long long *total_us, long long *max_us);

#endif /* BIO_H */
