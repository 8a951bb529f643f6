#ifndef CSPAWN_H
#define CSPAWN_H
#include <sys/types.h>

/// A pipe whose ends are closed on exec; 0, or the errno.
int cspawn_pipe(int fds[2]);

/// posix_spawn of `path` (no shell, no PATH search) with `in`, `out` and
/// `err` as its standard descriptors (-1: ours, inherited), every other
/// descriptor closed, and a process group of its own unless `own_group` is
/// 0; 0, or the error number.
int cspawn(pid_t *pid, const char *path, char *const argv[], int in, int out, int err, int own_group);

#endif
