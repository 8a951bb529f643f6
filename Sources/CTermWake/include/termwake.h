// CTermWake: how the terminal thread sleeps until there is something to do.
//
// It sleeps in poll(2) on stdin and on the read end of a pipe that other
// threads write a byte to when a frame or request is queued, and that
// SIGWINCH writes to: an idle client does not wake up at all, and a frame is
// drawn as soon as it is queued. A C target of its own because the SIGWINCH
// handler needs process-wide state that is safe to touch from a signal
// handler (a Swift global is not).
#ifndef TONGBAN_TERMWAKE_H
#define TONGBAN_TERMWAKE_H

/// Makes a non-blocking, close-on-exec pipe; fds[0] is read, fds[1] write.
/// Returns 0, or -1 (errno set).
int tb_wake_pipe(int fds[2]);

/// Writes one byte to `fd` (async-signal-safe; a full pipe already holds a
/// wake-up, so a refused write is fine).
void tb_wake(int fd);

/// Chains a handler in front of the current SIGWINCH handler (ncurses'
/// own) that also records the signal and wakes `write_fd`, whichever thread
/// the signal lands on.
void tb_install_winch_wake(int write_fd);

/// Gives SIGWINCH back to the handler that was there before.
void tb_remove_winch_wake(void);

/// Whether SIGWINCH arrived since the last call (then wget_wch has a
/// KEY_RESIZE to give).
int tb_take_winch(void);

/// Waits up to `timeout_ms` (-1: no limit) for stdin or `wake_fd` (-1: only
/// stdin). Returns a bit set: 1 stdin has input, 2 woken (the pipe is then
/// drained), 4 stdin hung up or failed, 8 interrupted by a signal; 0 on
/// timeout.
int tb_wait_input(int wake_fd, int timeout_ms);

/// Names the calling thread for the kernel (top -H, /proc/PID/task/*/comm);
/// cut to 15 bytes.
void tb_name_this_thread(const char *name);

#endif
