#define _GNU_SOURCE 1
#include "termwake.h"

#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t wake_write_fd = -1;
static volatile sig_atomic_t winch_seen = 0;
static struct sigaction previous_winch;

int tb_wake_pipe(int fds[2]) {
    if (pipe(fds) != 0) return -1;
    for (int i = 0; i < 2; i++) {
        int flags = fcntl(fds[i], F_GETFL);
        if (flags < 0 || fcntl(fds[i], F_SETFL, flags | O_NONBLOCK) != 0 || fcntl(fds[i], F_SETFD, FD_CLOEXEC) != 0) {
            int saved = errno;
            close(fds[0]);
            close(fds[1]);
            errno = saved;
            return -1;
        }
    }
    return 0;
}

void tb_wake(int fd) {
    static const char byte = 1;
    int saved = errno;
    if (fd >= 0 && write(fd, &byte, 1) < 0) { /* full or closed: nothing to do */ }
    errno = saved;
}

static void winch_handler(int sig, siginfo_t *info, void *context) {
    // The previous handler first: ncurses records the resize for wget_wch.
    if (previous_winch.sa_flags & SA_SIGINFO) {
        if (previous_winch.sa_sigaction != NULL) previous_winch.sa_sigaction(sig, info, context);
    } else if (previous_winch.sa_handler != SIG_DFL && previous_winch.sa_handler != SIG_IGN
               && previous_winch.sa_handler != NULL) {
        previous_winch.sa_handler(sig);
    }
    winch_seen = 1;
    tb_wake(wake_write_fd);
}

void tb_install_winch_wake(int write_fd) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = winch_handler;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    wake_write_fd = write_fd;
    sigaction(SIGWINCH, &sa, &previous_winch);
}

void tb_remove_winch_wake(void) {
    sigaction(SIGWINCH, &previous_winch, NULL);
    wake_write_fd = -1;
}

int tb_take_winch(void) {
    int seen = winch_seen;
    winch_seen = 0;
    return seen;
}

int tb_wait_input(int wake_fd, int timeout_ms) {
    struct pollfd p[2] = {
        { .fd = STDIN_FILENO, .events = POLLIN, .revents = 0 },
        { .fd = wake_fd, .events = POLLIN, .revents = 0 },
    };
    int n = poll(p, 2, timeout_ms);
    if (n < 0) return errno == EINTR ? 8 : 4;
    int result = 0;
    if (p[0].revents & POLLIN) result |= 1;
    if (p[0].revents & (POLLHUP | POLLERR | POLLNVAL)) result |= 4;
    if (wake_fd >= 0 && (p[1].revents & POLLIN)) {
        char buffer[64];
        while (read(wake_fd, buffer, sizeof buffer) > 0) { }
        result |= 2;
    }
    return result;
}

void tb_name_this_thread(const char *name) {
    char short_name[16];
    strncpy(short_name, name, sizeof short_name - 1);
    short_name[sizeof short_name - 1] = 0;
    pthread_setname_np(pthread_self(), short_name);
}
