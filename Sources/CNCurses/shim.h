// CNCurses: the slice of ncursesw (and libc) that TerminalUI uses, made
// visible to Swift 6.
//
// Why a shim and not the plain header:
// - the wide-character API (cchar_t, wget_wch, setcchar, mvwadd_wch) is only
//   declared when _XOPEN_SOURCE_EXTENDED / NCURSES_WIDECHAR are set before the
//   include (do not use `pkgConfig:` in Package.swift, its -D flags are refused);
// - Swift 6 rejects C globals (`stdscr`, `COLS`, `LINES`, `COLORS`, `stdout`)
//   as not concurrency safe, and cannot import macro expressions (`A_BOLD`,
//   `COLOR_PAIR(n)`), so each is wrapped in a `static inline` function;
// - `wcwidth` is hidden behind _XOPEN_SOURCE in glibc's already-built module,
//   so it is declared here.
// Every function here that touches ncurses must be called on the Terminal's
// own thread (see Terminal.swift).
#ifndef TONGBAN_CNCURSES_SHIM_H
#define TONGBAN_CNCURSES_SHIM_H

#ifndef _XOPEN_SOURCE_EXTENDED
#define _XOPEN_SOURCE_EXTENDED 1
#endif
#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1
#endif

#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <wchar.h>
#if defined(__has_include)
#if __has_include(<ncursesw/ncurses.h>)
#include <ncursesw/ncurses.h>
#else
#include <ncurses.h>
#endif
#else
#include <ncursesw/ncurses.h>
#endif

extern int wcwidth(wchar_t c);

// MARK: - Result codes

static inline int tb_ok(void) { return OK; }
static inline int tb_err(void) { return ERR; }
static inline int tb_key_code_yes(void) { return KEY_CODE_YES; }

// MARK: - Screen globals

static inline WINDOW *tb_stdscr(void) { return stdscr; }
static inline int tb_cols(void) { return COLS; }
static inline int tb_lines(void) { return LINES; }
static inline int tb_colors(void) { return COLORS; }
static inline int tb_color_pairs(void) { return COLOR_PAIRS; }

/// newterm(NULL, stdout, stdin): like initscr() but returns NULL instead of
/// exiting the process when the terminal cannot be set up.
static inline SCREEN *tb_newterm(void) { return newterm(NULL, stdout, stdin); }

/// Both stdin and stdout are terminals.
static inline int tb_stdio_is_tty(void) { return isatty(STDIN_FILENO) && isatty(STDOUT_FILENO); }

/// Writes raw bytes to the terminal (stdout), bypassing ncurses' screen model:
/// sequences that leave the cursor where it was (OSC title, DECSET 2004, the
/// true-colour overlay, which saves and restores it). A write interrupted by a
/// signal (SIGWINCH) or refused for now (non-blocking tty) is resumed, so a
/// sequence is never left half sent; a terminal that is gone ends it.
static inline void tb_write_raw(const char *s) {
    size_t left = strlen(s);
    while (left > 0) {
        ssize_t n = write(STDOUT_FILENO, s, left);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            struct pollfd p = { .fd = STDOUT_FILENO, .events = POLLOUT, .revents = 0 };
            if (poll(&p, 1, 1000) <= 0) return;
            continue;
        }
        if (n <= 0) return;
        s += n;
        left -= (size_t)n;
    }
}

/// ncurses (6.4 here) flushes its output buffer after every cursor move
/// while a screen is in its "initial" state, which newterm() leaves it in
/// until the first endwin()/refresh() cycle: a frame then reaches the
/// terminal as one write(2) per row segment (about 40 for a scrolled message
/// pane) instead of one. One endwin()/doupdate() right after the setup, before
/// anything is drawn, moves it to "running", where the buffer is flushed once
/// per doupdate().
static inline void tb_leave_initial_state(void) {
    endwin();
    doupdate();
}

// MARK: - Signals

static inline int tb_sigint(void) { return SIGINT; }
static inline int tb_sigterm(void) { return SIGTERM; }

/// Whether `sig` still has its default disposition (nobody handles it).
static inline int tb_signal_is_default(int sig) {
    struct sigaction old;
    if (sigaction(sig, NULL, &old) != 0) return 0;
    return !(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_DFL;
}

/// What ncurses' own SIGINT/SIGTERM handler does (endwin, best effort from
/// a signal handler), plus turning bracketed paste off, then dying of the
/// signal as the default disposition would.
static inline void tb_fatal_signal_cleanup(int sig) {
    static const char paste_off[] = "\033[?2004l";
    endwin();
    if (write(STDOUT_FILENO, paste_off, sizeof paste_off - 1) < 0) { /* nothing to do */ }
    signal(sig, SIG_DFL);
    raise(sig);
}

static inline void tb_install_fatal_signal_cleanup(int sig) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = tb_fatal_signal_cleanup;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, NULL);
}

static inline void tb_reset_signal(int sig) { signal(sig, SIG_DFL); }

// MARK: - Attributes and colours

static inline attr_t tb_a_normal(void) { return A_NORMAL; }
static inline attr_t tb_a_bold(void) { return A_BOLD; }
static inline attr_t tb_a_reverse(void) { return A_REVERSE; }
static inline attr_t tb_a_underline(void) { return A_UNDERLINE; }
static inline attr_t tb_a_dim(void) { return A_DIM; }
static inline attr_t tb_color_pair(int n) { return (attr_t)COLOR_PAIR(n); }

// MARK: - Keys

static inline int tb_key_resize(void) { return KEY_RESIZE; }
static inline int tb_key_up(void) { return KEY_UP; }
static inline int tb_key_down(void) { return KEY_DOWN; }
static inline int tb_key_left(void) { return KEY_LEFT; }
static inline int tb_key_right(void) { return KEY_RIGHT; }
static inline int tb_key_home(void) { return KEY_HOME; }
static inline int tb_key_end(void) { return KEY_END; }
static inline int tb_key_ppage(void) { return KEY_PPAGE; }
static inline int tb_key_npage(void) { return KEY_NPAGE; }
static inline int tb_key_backspace(void) { return KEY_BACKSPACE; }
static inline int tb_key_dc(void) { return KEY_DC; }
static inline int tb_key_btab(void) { return KEY_BTAB; }
static inline int tb_key_enter(void) { return KEY_ENTER; }
static inline int tb_key_find(void) { return KEY_FIND; }
static inline int tb_key_select(void) { return KEY_SELECT; }

/// wget_wch on stdscr. Returns OK (a character in *out), KEY_CODE_YES (a key
/// code in *out) or ERR (timeout).
static inline int tb_get_wch(uint32_t *out) {
    wint_t w = 0;
    int r = wget_wch(stdscr, &w);
    *out = (uint32_t)w;
    return r;
}

// MARK: - Drawing

/// Draws one ncurses cell at (y, x): `cps[0]` is a spacing character, the rest
/// (at most CCHARW_MAX - 1 are kept) are zero-width marks drawn on top of it.
/// A double-width spacing character also covers x + 1.
static inline int tb_put_cell(int y, int x, const uint32_t *cps, int n, attr_t attrs, short pair) {
    wchar_t buf[CCHARW_MAX + 1];
    cchar_t cell;
    int i;
    if (n < 1) return ERR;
    if (n > CCHARW_MAX) n = CCHARW_MAX;
    for (i = 0; i < n; i++) buf[i] = (wchar_t)cps[i];
    buf[n] = 0;
    if (setcchar(&cell, buf, attrs, pair, NULL) == ERR) return ERR;
    return mvwadd_wch(stdscr, y, x, &cell);
}

// MARK: - Locale and widths

static inline int tb_lc_all(void) { return LC_ALL; }

/// setlocale(LC_ALL, name); returns 1 on success.
static inline int tb_setlocale_all(const char *name) { return setlocale(LC_ALL, name) != NULL; }

/// The global locale's LC_CTYPE codeset is UTF-8.
static inline int tb_codeset_is_utf8(void) {
    const char *cs = nl_langinfo(CODESET);
    return cs != NULL && (strcasecmp(cs, "UTF-8") == 0 || strcasecmp(cs, "UTF8") == 0);
}

/// A private UTF-8 LC_CTYPE locale for measuring widths without touching the
/// process' global locale. NULL if none of the usual names exists.
static inline locale_t tb_new_utf8_ctype_locale(void) {
    static const char *const names[] = { "C.UTF-8", "C.utf8", "en_US.UTF-8", "en_US.utf8" };
    size_t i;
    for (i = 0; i < sizeof names / sizeof names[0]; i++) {
        locale_t l = newlocale(LC_CTYPE_MASK, names[i], (locale_t)0);
        if (l != (locale_t)0) return l;
    }
    return (locale_t)0;
}

/// glibc's wcwidth for one code point, evaluated in `loc` (this thread only,
/// the previous thread locale is restored); in the global locale if loc is NULL.
static inline int tb_wcwidth_in(locale_t loc, uint32_t cp) {
    locale_t old;
    int w;
    if (loc == (locale_t)0) return wcwidth((wchar_t)cp);
    old = uselocale(loc);
    w = wcwidth((wchar_t)cp);
    uselocale(old);
    return w;
}

// MARK: - Mouse

/// Clicks and the wheel as KEY_MOUSE (ncurses turns the terminal's mouse
/// mode on and off itself, SGR 1006 where terminfo says so); no click
/// resolution delay, the app tells clicks from double clicks.
static inline void tb_mouse(int on) {
    mmask_t old;
    mouseinterval(0);
    mousemask(on ? (ALL_MOUSE_EVENTS) : 0, &old);
}

static inline int tb_key_mouse(void) { return KEY_MOUSE; }

/// The pending mouse event: 0 none, 1 left press, 2 left release, 3 wheel
/// up, 4 wheel down, 5 another button.
static inline int tb_get_mouse(int *x, int *y) {
    MEVENT e;
    if (getmouse(&e) != OK) return 0;
    *x = e.x;
    *y = e.y;
    if (e.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED)) return 1;
    if (e.bstate & BUTTON1_RELEASED) return 2;
    if (e.bstate & BUTTON4_PRESSED) return 3;
#ifdef BUTTON5_PRESSED
    if (e.bstate & BUTTON5_PRESSED) return 4;
#endif
    return 5;
}

#endif
