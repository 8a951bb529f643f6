// libvips from Swift, loaded with dlopen on the first picture.
//
// SwiftPM rejects the -pthread and -D flags that `pkg-config vips` adds (see
// ARCHITECTURE.md), so instead of including <vips/vips.h> (which needs glib's
// include paths) this file declares the few libvips entry points it calls,
// exactly as libvips 8.14 exports them. They are looked up at run time rather
// than linked: libvips pulls in about a hundred libraries (librsvg, OpenEXR,
// HDF5, GnuTLS, ...), which a client that shows no picture should neither
// load at startup nor keep resident.
#include "cvips.h"
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <pthread.h>

typedef struct _VipsImage VipsImage;
static struct {
    int (*p_vips_init)(const char *argv0);
    VipsImage *(*p_vips_image_new_from_buffer)(const void *buf, size_t len, const char *option_string, ...);
    int (*p_vips_thumbnail_buffer)(void *buf, size_t len, VipsImage **out, int width, ...);
    int (*p_vips_jpegsave_buffer)(VipsImage *in, void **buf, size_t *len, ...);
    int (*p_vips_image_get_width)(const VipsImage *image);
    int (*p_vips_image_get_height)(const VipsImage *image);
    int (*p_vips_image_get_bands)(const VipsImage *image);
    int (*p_vips_image_hasalpha)(VipsImage *image);
    void *(*p_vips_image_write_to_memory)(VipsImage *in, size_t *size);
    int (*p_vips_colourspace)(VipsImage *in, VipsImage **out, int space, ...);
    int (*p_vips_cast)(VipsImage *in, VipsImage **out, int format, ...);
    int (*p_vips_flatten)(VipsImage *in, VipsImage **out, ...);
    int (*p_vips_image_write_to_buffer)(VipsImage *in, const char *suffix, void **buf, size_t *size, ...);
    const char *(*p_vips_error_buffer)(void);
    void (*p_vips_error_clear)(void);
    void (*p_g_object_unref)(void *object);
    void (*p_g_free)(void *mem);
} V;

enum { TB_INTERPRETATION_sRGB = 22, TB_FORMAT_UCHAR = 0, TB_SIZE_DOWN = 2 };
static const int tb_huge = 10000000;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int start_result = -1;
/// Why libvips could not be loaded (empty once it is).
static char load_error[256] = "";

static void start(void) {
    void *h = dlopen("libvips.so.42", RTLD_NOW | RTLD_LOCAL);
    if (!h) h = dlopen("libvips.so", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(load_error, sizeof load_error, "libvips is not available (%s); install libvips42", e ? e : "libvips.so.42");
        return;
    }
    // dlsym on the handle also searches libvips' own dependencies (GObject, GLib).
#define TB_SYM(name) \
    if (!(*(void **)&V.p_##name = dlsym(h, #name))) { \
        snprintf(load_error, sizeof load_error, "libvips lacks %s", #name); \
        return; \
    }
    TB_SYM(vips_init) TB_SYM(vips_image_new_from_buffer) TB_SYM(vips_thumbnail_buffer) TB_SYM(vips_jpegsave_buffer)
    TB_SYM(vips_image_get_width) TB_SYM(vips_image_get_height) TB_SYM(vips_image_get_bands) TB_SYM(vips_image_hasalpha)
    TB_SYM(vips_image_write_to_memory) TB_SYM(vips_colourspace) TB_SYM(vips_cast) TB_SYM(vips_flatten)
    TB_SYM(vips_image_write_to_buffer) TB_SYM(vips_error_buffer) TB_SYM(vips_error_clear) TB_SYM(g_object_unref)
    TB_SYM(g_free)
#undef TB_SYM
    start_result = V.p_vips_init("tongban");
    if (start_result != 0) {
        snprintf(load_error, sizeof load_error, "libvips did not start");
        return;
    }
    // Pictures come from the network: only the four formats the protocol
    // carries are parsed. Every other loader libvips has (SVG, PDF, TIFF,
    // HEIF, Matlab, FITS, ImageMagick, ...) is blocked, and so is anything
    // libvips itself marks as not fuzzed for untrusted input (8.13+).
    void (*block_untrusted)(int) = (void (*)(int))dlsym(h, "vips_block_untrusted_set");
    void (*block)(const char *, int) = (void (*)(const char *, int))dlsym(h, "vips_operation_block_set");
    if (!block) {
        start_result = -1;
        snprintf(load_error, sizeof load_error, "libvips is older than 8.13 (no vips_operation_block_set)");
        return;
    }
    if (block_untrusted) block_untrusted(1);
    block("VipsForeignLoad", 1);
    static const char *const allowed[] = {
        "VipsForeignLoadJpeg", "VipsForeignLoadPng", "VipsForeignLoadNsgif", "VipsForeignLoadGif", "VipsForeignLoadWebp",
    };
    for (size_t i = 0; i < sizeof allowed / sizeof allowed[0]; i++) block(allowed[i], 0);
}

int tb_vips_start(void) {
    pthread_once(&once, start);
    return start_result;
}

#define vips_image_new_from_buffer V.p_vips_image_new_from_buffer
#define vips_thumbnail_buffer V.p_vips_thumbnail_buffer
#define vips_jpegsave_buffer V.p_vips_jpegsave_buffer
#define vips_image_get_width V.p_vips_image_get_width
#define vips_image_get_height V.p_vips_image_get_height
#define vips_image_get_bands V.p_vips_image_get_bands
#define vips_image_hasalpha V.p_vips_image_hasalpha
#define vips_image_write_to_memory V.p_vips_image_write_to_memory
#define vips_colourspace V.p_vips_colourspace
#define vips_cast V.p_vips_cast
#define vips_flatten V.p_vips_flatten
#define vips_image_write_to_buffer V.p_vips_image_write_to_buffer
#define g_object_unref V.p_g_object_unref
#define g_free V.p_g_free

static VipsImage *load(const void *buf, size_t len, int max_w, int max_h) {
    if (tb_vips_start() != 0) return NULL;
    if (max_w <= 0 && max_h <= 0) return vips_image_new_from_buffer(buf, len, "", NULL);
    VipsImage *out = NULL;
    if (vips_thumbnail_buffer((void *)buf, len, &out, max_w > 0 ? max_w : tb_huge,
                              "height", max_h > 0 ? max_h : tb_huge, "size", TB_SIZE_DOWN, NULL) != 0) return NULL;
    return out;
}

/// sRGB, 8-bit, no alpha: what the terminal renderer and the JPEG encoder take.
static VipsImage *normalise(VipsImage *in) {
    VipsImage *a = NULL, *b = NULL, *c = NULL;
    if (vips_colourspace(in, &a, TB_INTERPRETATION_sRGB, NULL) != 0) return NULL;
    if (vips_image_hasalpha(a)) {
        if (vips_flatten(a, &b, NULL) != 0) { g_object_unref(a); return NULL; }
        g_object_unref(a);
    } else {
        b = a;
    }
    if (vips_cast(b, &c, TB_FORMAT_UCHAR, NULL) != 0) { g_object_unref(b); return NULL; }
    g_object_unref(b);
    return c;
}

int tb_vips_size(const void *buf, size_t len, int *width, int *height) {
    VipsImage *img = load(buf, len, 0, 0);
    if (!img) return -1;
    *width = vips_image_get_width(img);
    *height = vips_image_get_height(img);
    g_object_unref(img);
    return 0;
}

int tb_vips_decode_rgb(const void *buf, size_t len, int max_w, int max_h, tb_rgb *out) {
    VipsImage *img = load(buf, len, max_w, max_h);
    if (!img) return -1;
    VipsImage *rgb = normalise(img);
    g_object_unref(img);
    if (!rgb) return -1;
    if (vips_image_get_bands(rgb) != 3) { g_object_unref(rgb); return -1; }
    size_t size = 0;
    void *mem = vips_image_write_to_memory(rgb, &size);
    out->width = vips_image_get_width(rgb);
    out->height = vips_image_get_height(rgb);
    g_object_unref(rgb);
    if (!mem || size != (size_t)out->width * (size_t)out->height * 3) { if (mem) g_free(mem); return -1; }
    out->pixels = mem;
    return 0;
}

int tb_vips_jpeg(const void *buf, size_t len, int max_side, int quality, void **out, size_t *out_len, int *width, int *height) {
    // Always through the thumbnailer (never upscaling): it applies the EXIF
    // orientation, which "strip" below removes along with GPS and the rest.
    VipsImage *img = load(buf, len, max_side > 0 ? max_side : tb_huge, max_side > 0 ? max_side : tb_huge);
    if (!img) return -1;
    VipsImage *rgb = normalise(img);
    g_object_unref(img);
    if (!rgb) return -1;
    *width = vips_image_get_width(rgb);
    *height = vips_image_get_height(rgb);
    int r = vips_jpegsave_buffer(rgb, out, out_len, "Q", quality, "strip", 1, NULL);
    g_object_unref(rgb);
    return r;
}

int tb_vips_convert(const void *buf, size_t len, const char *suffix, void **out, size_t *out_len) {
    VipsImage *img = load(buf, len, 0, 0);
    if (!img) return -1;
    int r = vips_image_write_to_buffer(img, suffix, out, out_len, NULL);
    g_object_unref(img);
    return r;
}

void tb_vips_free(void *p) { if (p && V.p_g_free) V.p_g_free(p); }

void tb_vips_error(char *buf, size_t len) {
    if (len == 0) return;
    if (start_result != 0) {
        strncpy(buf, load_error, len - 1);
        buf[len - 1] = 0;
        return;
    }
    const char *e = V.p_vips_error_buffer();
    strncpy(buf, e ? e : "", len - 1);
    buf[len - 1] = 0;
    V.p_vips_error_clear();
}
