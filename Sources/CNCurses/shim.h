#ifndef TONGBAN_CNCURSES_SHIM_H
#define TONGBAN_CNCURSES_SHIM_H

#define _XOPEN_SOURCE_EXTENDED 1
#define NCURSES_WIDECHAR 1
#include <locale.h>
#include <langinfo.h>
#include <wchar.h>
#include <stdio.h>
#include <string.h>
#include <ncursesw/ncurses.h>

// Swift 6 cannot use C globals or macro expressions: wrap them.
static inline WINDOW *tb_stdscr(void) { return stdscr; }
static inline int tb_cols(void) { return COLS; }
static inline int tb_lines(void) { return LINES; }
static inline int tb_colors(void) { return COLORS; }
static inline int tb_color_pairs(void) { return COLOR_PAIRS; }
static inline int tb_err(void) { return ERR; }
static inline int tb_key_code_yes(void) { return KEY_CODE_YES; }

static inline attr_t tb_a_bold(void) { return A_BOLD; }
static inline attr_t tb_a_reverse(void) { return A_REVERSE; }
static inline attr_t tb_a_underline(void) { return A_UNDERLINE; }
static inline attr_t tb_a_dim(void) { return A_DIM; }
static inline attr_t tb_a_normal(void) { return A_NORMAL; }

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

int wcwidth(wchar_t c);

/// Draws one grapheme (up to 8 code points) at y, x with attributes and a colour pair.
static inline int tb_put_cell(int y, int x, const wchar_t *text, attr_t attrs, short pair) {
    cchar_t cc;
    wchar_t buf[9];
    int n = 0;
    while (n < 8 && text[n] != 0) { buf[n] = text[n]; n++; }
    buf[n] = 0;
    if (setcchar(&cc, buf, attrs, pair, NULL) == ERR) return ERR;
    return mvadd_wch(y, x, &cc);
}

/// Reads one key: returns the wget_wch status; *out receives the code.
static inline int tb_get_wch(WINDOW *w, unsigned int *out) {
    wint_t ch = 0;
    int r = wget_wch(w, &ch);
    *out = (unsigned int)ch;
    return r;
}

/// Whether the current locale's codeset is UTF-8.
static inline int tb_locale_is_utf8(void) {
    const char *cs = nl_langinfo(CODESET);
    return cs != NULL && (strcmp(cs, "UTF-8") == 0 || strcmp(cs, "utf8") == 0);
}

static inline void tb_setlocale_all(const char *name) { setlocale(LC_ALL, name); }

/// Writes raw bytes to the terminal (title, bracketed paste mode).
static inline void tb_write_raw(const char *s) { fputs(s, stdout); fflush(stdout); }

#endif
