/* SPDX-License-Identifier: Apache-2.0 */
/* PNG decoding with libpng: every colour type and depth to 8-bit RGB. */
#include <errno.h>
#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval.h"

typedef struct png_reader {
        const uint8_t *data;
        size_t size, pos;
        char *err;
        size_t err_size;
        /* Allocated between setjmp and longjmp: kept here, not in locals,
         * so that they survive the jump (locals would need volatile). */
        eval_image_t *img;
        uint8_t *row;
} png_reader_t;

static void png_read_mem(png_structp png, png_bytep out, size_t n) {
        png_reader_t *r = png_get_io_ptr(png);

        if (n > r->size - r->pos)
                png_error(png, "truncated file");
        memcpy(out, r->data + r->pos, n);
        r->pos += n;
}

static void png_on_error(png_structp png, png_const_charp msg) {
        png_reader_t *r = png_get_error_ptr(png);

        snprintf(r->err, r->err_size, "PNG: %s", msg);
        png_longjmp(png, 1);
}

static void png_on_warning(png_structp png, png_const_charp msg) {
        /* Warnings (bad ancillary chunks, sRGB profile quirks) do not make
         * the pixels wrong; they are not errors. */
}

int eval__image_decode_png(const void *data, size_t size, eval_image_t **ret, char *err, size_t err_size) {
        png_reader_t r = { .data = data, .size = size, .err = err, .err_size = err_size };
        png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &r, png_on_error, png_on_warning);
        png_infop info = NULL;
        volatile int rc = -EINVAL;

        if (!png)
                return -ENOMEM;
        info = png_create_info_struct(png);
        if (!info) {
                png_destroy_read_struct(&png, NULL, NULL);
                return -ENOMEM;
        }
        if (setjmp(png_jmpbuf(png))) {
                rc = -EINVAL;
                goto done;
        }
        png_set_read_fn(png, &r, png_read_mem);
        /* Refuse absurd sizes before libpng allocates anything for them. */
        png_set_user_limits(png, 32768, 32768);
        png_read_info(png, info);

        /* Palette -> RGB, grey < 8 bits -> 8 bits, tRNS -> alpha (then
         * dropped), 16 -> 8 bits, grey -> RGB: exact, no gamma handling. */
        png_set_expand(png);
        png_set_strip_16(png);
        png_set_strip_alpha(png);
        png_set_gray_to_rgb(png);
        int passes = png_set_interlace_handling(png);
        png_read_update_info(png, info);

        uint32_t w = png_get_image_width(png, info), h = png_get_image_height(png, info);
        size_t rowbytes = png_get_rowbytes(png, info);
        if (png_get_channels(png, info) != 3 || png_get_bit_depth(png, info) != 8 || rowbytes != (size_t) w * 3) {
                snprintf(err, err_size, "PNG: unexpected layout after conversion to RGB");
                goto done;
        }
        r.img = eval_image_new(w, h);
        if (!r.img) {
                rc = -ENOMEM;
                goto done;
        }
        /* Interlaced images need every row present between passes: decode
         * into one byte buffer of the whole image. */
        r.row = malloc(rowbytes * h);
        if (!r.row) {
                rc = -ENOMEM;
                goto done;
        }
        for (int pass = 0; pass < passes; pass++)
                for (uint32_t y = 0; y < h; y++)
                        png_read_row(png, r.row + rowbytes * y, NULL);
        png_read_end(png, NULL);
        for (size_t i = 0; i < rowbytes * h; i++)
                r.img->data[i] = r.row[i];
        *ret = r.img;
        r.img = NULL;
        rc = 0;
done:
        png_destroy_read_struct(&png, &info, NULL);
        free(r.row);
        eval_image_free(r.img);
        return rc;
}
