// pipe2 and posix_spawn_file_actions_addclosefrom_np are GNU extensions
// that Swift's Glibc module does not show.
#define _GNU_SOURCE
#include "cspawn.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <unistd.h>

extern char **environ;

int cspawn_pipe(int fds[2]) { return pipe2(fds, O_CLOEXEC) == 0 ? 0 : errno; }

int cspawn(pid_t *pid, const char *path, char *const argv[], int in, int out, int err, int own_group) {
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    int rc = posix_spawn_file_actions_init(&actions);
    if (rc != 0) return rc;
    rc = posix_spawnattr_init(&attributes);
    if (rc != 0) {
        posix_spawn_file_actions_destroy(&actions);
        return rc;
    }
    if (rc == 0 && in >= 0) rc = posix_spawn_file_actions_adddup2(&actions, in, STDIN_FILENO);
    if (rc == 0 && out >= 0) rc = posix_spawn_file_actions_adddup2(&actions, out, STDOUT_FILENO);
    if (rc == 0 && err >= 0) rc = posix_spawn_file_actions_adddup2(&actions, err, STDERR_FILENO);
    if (rc == 0) rc = posix_spawn_file_actions_addclosefrom_np(&actions, 3);
    // Signals this process ignores (SIGPIPE; SIGTERM and SIGINT where a
    // service group or the terminal UI takes them) or blocks would be
    // ignored or blocked in the child too: a player would not stop.
    sigset_t all, none;
    sigfillset(&all);
    sigemptyset(&none);
    if (rc == 0) rc = posix_spawnattr_setsigdefault(&attributes, &all);
    if (rc == 0) rc = posix_spawnattr_setsigmask(&attributes, &none);
    short flags = POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | (own_group ? POSIX_SPAWN_SETPGROUP : 0);
    if (rc == 0) rc = posix_spawnattr_setflags(&attributes, flags);
    if (rc == 0) rc = posix_spawn(pid, path, &actions, &attributes, argv, environ);
    posix_spawnattr_destroy(&attributes);
    posix_spawn_file_actions_destroy(&actions);
    return rc;
}
