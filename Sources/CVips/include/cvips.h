#ifndef TONGBAN_CVIPS_H
#define TONGBAN_CVIPS_H
#include <stddef.h>

/// Decoded RGB pixels (3 bytes per pixel, row by row); free with tb_vips_free.
typedef struct tb_rgb {
    unsigned char *pixels;
    int width;
    int height;
} tb_rgb;

/// Starts libvips once; 0 on success.
int tb_vips_start(void);
/// The image's size, read from its header.
int tb_vips_size(const void *buf, size_t len, int *width, int *height);
/// Decodes the first frame, shrunk (never enlarged) to fit max_w x max_h
/// (0 = no limit), as 8-bit sRGB without alpha.
int tb_vips_decode_rgb(const void *buf, size_t len, int max_w, int max_h, tb_rgb *out);
/// Re-encodes as JPEG at quality 1-100, the longest side shrunk to max_side
/// (0 = keep); reports the output size in pixels.
int tb_vips_jpeg(const void *buf, size_t len, int max_side, int quality, void **out, size_t *out_len, int *width, int *height);
/// Re-encodes into the format of `suffix` (".png", ".webp", ".gif", ".jpg").
int tb_vips_convert(const void *buf, size_t len, const char *suffix, void **out, size_t *out_len);
void tb_vips_free(void *p);
/// The last error text (copied into buf, then cleared).
void tb_vips_error(char *buf, size_t len);

#endif
