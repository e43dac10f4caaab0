/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Image decoding and ImagePreprocessingParams steps, pixel by pixel, on
 * tiny images written here with libpng and libjpeg. Every expected value
 * is worked out in the comment next to it.
 */
#include <check.h>
#include <errno.h>
#include <math.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>

#include "eval.h"

/* ---- writing test images ---- */

typedef struct membuf {
        uint8_t *data;
        size_t size, cap;
} membuf_t;

static void png_write_mem(png_structp png, png_bytep data, size_t n) {
        membuf_t *m = png_get_io_ptr(png);
        if (m->size + n > m->cap) {
                m->cap = (m->size + n) * 2;
                m->data = realloc(m->data, m->cap);
                ck_assert_ptr_nonnull(m->data);
        }
        memcpy(m->data + m->size, data, n);
        m->size += n;
}

static void png_flush_mem(png_structp png) {
}

/* A PNG of `color_type` / `depth` from raw rows (big-endian for 16 bits);
 * palette entries (n_palette RGB triples) for palette images. */
static membuf_t png_make(uint32_t w, uint32_t h, int color_type, int depth, const uint8_t *pixels,
                         const uint8_t *palette, int n_palette, bool interlace) {
        membuf_t m = {};
        png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
        png_infop info = png_create_info_struct(png);
        ck_assert(png && info);
        png_set_write_fn(png, &m, png_write_mem, png_flush_mem);
        png_set_IHDR(png, info, w, h, depth, color_type, interlace ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE,
                     PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
        if (palette) {
                png_color pal[256];
                for (int i = 0; i < n_palette; i++)
                        pal[i] = (png_color) { palette[i * 3], palette[i * 3 + 1], palette[i * 3 + 2] };
                png_set_PLTE(png, info, pal, n_palette);
        }
        png_write_info(png, info);
        size_t rowbytes = png_get_rowbytes(png, info);
        png_bytep *rows = calloc(h, sizeof(*rows));
        for (uint32_t y = 0; y < h; y++)
                rows[y] = (png_bytep) pixels + rowbytes * y;
        png_write_image(png, rows);
        png_write_end(png, NULL);
        png_destroy_write_struct(&png, &info);
        free(rows);
        return m;
}

static membuf_t jpeg_make(uint32_t w, uint32_t h, const uint8_t *rgb, int quality) {
        struct jpeg_compress_struct c;
        struct jpeg_error_mgr e;
        unsigned char *out = NULL;
        unsigned long size = 0;

        c.err = jpeg_std_error(&e);
        jpeg_create_compress(&c);
        jpeg_mem_dest(&c, &out, &size);
        c.image_width = w;
        c.image_height = h;
        c.input_components = 3;
        c.in_color_space = JCS_RGB;
        jpeg_set_defaults(&c);
        jpeg_set_quality(&c, quality, TRUE);
        /* 4:4:4: no chroma subsampling, so flat 8x8 blocks stay flat. */
        for (int i = 0; i < c.num_components; i++)
                c.comp_info[i].h_samp_factor = c.comp_info[i].v_samp_factor = 1;
        jpeg_start_compress(&c, TRUE);
        while (c.next_scanline < h) {
                JSAMPROW row = (JSAMPROW) rgb + (size_t) c.next_scanline * w * 3;
                jpeg_write_scanlines(&c, &row, 1);
        }
        jpeg_finish_compress(&c);
        jpeg_destroy_compress(&c);
        membuf_t m = { .data = out, .size = size };
        return m;
}

/* An image whose pixel (x, y) channel c is 10 * y + x + 100 * c. */
static eval_image_t *ramp(uint32_t w, uint32_t h) {
        eval_image_t *img = eval_image_new(w, h);
        ck_assert_ptr_nonnull(img);
        for (uint32_t y = 0; y < h; y++)
                for (uint32_t x = 0; x < w; x++)
                        for (unsigned c = 0; c < 3; c++)
                                *eval_image_at(img, x, y, c) = (float) (10 * y + x + 100 * c);
        return img;
}

static float px(const eval_image_t *img, uint32_t x, uint32_t y, unsigned c) {
        return *eval_image_at(img, x, y, c);
}

/* ---- decoding ---- */

START_TEST(test_png_rgb_exact) {
        /* 3x2 RGB: row 0 red, green, blue; row 1 black, white, (1, 2, 3). */
        const uint8_t pixels[18] = { 255, 0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 1, 2, 3 };
        membuf_t m = png_make(3, 2, PNG_COLOR_TYPE_RGB, 8, pixels, NULL, 0, false);
        eval_image_t *img = NULL;
        char err[256] = "";

        ck_assert_msg(eval_image_decode(m.data, m.size, &img, err, sizeof(err)) == 0, "%s", err);
        ck_assert_uint_eq(img->width, 3);
        ck_assert_uint_eq(img->height, 2);
        for (int i = 0; i < 18; i++)
                ck_assert_float_eq(img->data[i], pixels[i]);
        eval_image_free(img);
        free(m.data);
}
END_TEST

START_TEST(test_png_grey_palette_16bit_alpha_interlaced) {
        eval_image_t *img = NULL;
        char err[256] = "";

        /* Grey 2x1: 7 and 200 become (7, 7, 7) and (200, 200, 200). */
        const uint8_t grey[2] = { 7, 200 };
        membuf_t m = png_make(2, 1, PNG_COLOR_TYPE_GRAY, 8, grey, NULL, 0, false);
        ck_assert_msg(eval_image_decode(m.data, m.size, &img, err, sizeof(err)) == 0, "%s", err);
        ck_assert_float_eq(px(img, 0, 0, 2), 7);
        ck_assert_float_eq(px(img, 1, 0, 0), 200);
        img = eval_image_free(img);
        free(m.data);

        /* Palette 2x1 (indices 1, 0) of {(10, 20, 30), (40, 50, 60)}. */
        const uint8_t idx[2] = { 1, 0 }, pal[6] = { 10, 20, 30, 40, 50, 60 };
        m = png_make(2, 1, PNG_COLOR_TYPE_PALETTE, 8, idx, pal, 2, false);
        ck_assert_msg(eval_image_decode(m.data, m.size, &img, err, sizeof(err)) == 0, "%s", err);
        ck_assert_float_eq(px(img, 0, 0, 0), 40);
        ck_assert_float_eq(px(img, 0, 0, 2), 60);
        ck_assert_float_eq(px(img, 1, 0, 1), 20);
        img = eval_image_free(img);
        free(m.data);

        /* 16-bit RGB 1x1 (0x1234, 0xff00, 0x00ff): the high bytes 0x12,
         * 0xff, 0x00. */
        const uint8_t deep[6] = { 0x12, 0x34, 0xff, 0x00, 0x00, 0xff };
        m = png_make(1, 1, PNG_COLOR_TYPE_RGB, 16, deep, NULL, 0, false);
        ck_assert_msg(eval_image_decode(m.data, m.size, &img, err, sizeof(err)) == 0, "%s", err);
        ck_assert_float_eq(px(img, 0, 0, 0), 0x12);
        ck_assert_float_eq(px(img, 0, 0, 1), 0xff);
        ck_assert_float_eq(px(img, 0, 0, 2), 0);
        img = eval_image_free(img);
        free(m.data);

        /* RGBA 1x1 (9, 8, 7, alpha 0): alpha is dropped, colour kept. */
        const uint8_t rgba[4] = { 9, 8, 7, 0 };
        m = png_make(1, 1, PNG_COLOR_TYPE_RGB_ALPHA, 8, rgba, NULL, 0, false);
        ck_assert_msg(eval_image_decode(m.data, m.size, &img, err, sizeof(err)) == 0, "%s", err);
        ck_assert_float_eq(px(img, 0, 0, 0), 9);
        ck_assert_float_eq(px(img, 0, 0, 2), 7);
        img = eval_image_free(img);
        free(m.data);

        /* Interlaced 9x9 grey ramp v = 9 y + x: every pixel in place. */
        uint8_t ramp9[81];
        for (int i = 0; i < 81; i++)
                ramp9[i] = (uint8_t) i;
        m = png_make(9, 9, PNG_COLOR_TYPE_GRAY, 8, ramp9, NULL, 0, true);
        ck_assert_msg(eval_image_decode(m.data, m.size, &img, err, sizeof(err)) == 0, "%s", err);
        for (uint32_t y = 0; y < 9; y++)
                for (uint32_t x = 0; x < 9; x++)
                        ck_assert_float_eq(px(img, x, y, 1), 9 * y + x);
        img = eval_image_free(img);
        free(m.data);
}
END_TEST

START_TEST(test_jpeg_flat_blocks) {
        /* 16x8 at quality 100, 4:4:4: left block (200, 100, 50), right
         * block grey 128. Flat blocks carry only DC terms; the colour
         * conversion round trip is within 1. */
        uint8_t rgb[16 * 8 * 3];
        for (int y = 0; y < 8; y++)
                for (int x = 0; x < 16; x++) {
                        uint8_t *p = rgb + (y * 16 + x) * 3;
                        if (x < 8) {
                                p[0] = 200;
                                p[1] = 100;
                                p[2] = 50;
                        } else
                                p[0] = p[1] = p[2] = 128;
                }
        membuf_t m = jpeg_make(16, 8, rgb, 100);
        eval_image_t *img = NULL;
        char err[256] = "";

        ck_assert_msg(eval_image_decode(m.data, m.size, &img, err, sizeof(err)) == 0, "%s", err);
        ck_assert_uint_eq(img->width, 16);
        ck_assert_uint_eq(img->height, 8);
        for (uint32_t y = 0; y < 8; y++)
                for (uint32_t x = 0; x < 16; x++)
                        for (unsigned c = 0; c < 3; c++) {
                                float want = rgb[(y * 16 + x) * 3 + c];
                                ck_assert_msg(fabsf(px(img, x, y, c) - want) <= 1.0f, "(%u,%u,%u) %g vs %g", x, y,
                                              c, px(img, x, y, c), want);
                        }
        eval_image_free(img);
        /* A JPEG cut before its end marker still decodes (libjpeg pads it),
         * as TFLite's decoder does; garbage does not. */
        ck_assert_int_eq(eval_image_decode(m.data, m.size - 2, &img, err, sizeof(err)), 0);
        eval_image_free(img);
        const uint8_t junk[8] = { 0xff, 0xd8, 0xff, 0, 1, 2, 3, 4 };
        ck_assert_int_eq(eval_image_decode(junk, sizeof(junk), &img, err, sizeof(err)), -EINVAL);
        ck_assert_msg(strncmp(err, "JPEG: ", 6) == 0, "%s", err);
        free(m.data);
}
END_TEST

START_TEST(test_decode_rejects_other_formats) {
        eval_image_t *img = NULL;
        char err[256] = "";

        ck_assert_int_eq(eval_image_decode("GIF89a..", 8, &img, err, sizeof(err)), -EINVAL);
        ck_assert_str_eq(err, "not a JPEG or PNG image");
        const uint8_t png_head[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
        ck_assert_int_eq(eval_image_decode(png_head, 8, &img, err, sizeof(err)), -EINVAL);
        ck_assert_msg(strncmp(err, "PNG: ", 5) == 0, "%s", err);
        ck_assert_int_eq(eval_image_load("/nonexistent.png", &img, err, sizeof(err)), -ENOENT);
        ck_assert_ptr_null(img);
}
END_TEST

/* ---- steps ---- */

START_TEST(test_crop_fraction_and_size) {
        eval_image_t *img = ramp(4, 4);
        char err[256] = "";

        /* 0.5 of 4x4: 2x2 at offset round(2 / 2) = 1: values 11 12 / 21 22. */
        eval_crop_t half = { .use_fraction = true, .fraction = 0.5f };
        ck_assert_int_eq(eval_crop_apply(&half, &img, err, sizeof(err)), 0);
        ck_assert_uint_eq(img->width, 2);
        ck_assert_float_eq(px(img, 0, 0, 0), 11);
        ck_assert_float_eq(px(img, 1, 0, 0), 12);
        ck_assert_float_eq(px(img, 0, 1, 0), 21);
        ck_assert_float_eq(px(img, 1, 1, 2), 222);
        img = eval_image_free(img);

        /* Square 0.5 of 4x2: 2x1 -> 1x1 at x round(1.5) = 2, y round(0.5) = 1:
         * pixel 12. */
        img = ramp(4, 2);
        eval_crop_t sq = { .use_fraction = true, .fraction = 0.5f, .square = true };
        ck_assert_int_eq(eval_crop_apply(&sq, &img, err, sizeof(err)), 0);
        ck_assert_uint_eq(img->width, 1);
        ck_assert_uint_eq(img->height, 1);
        ck_assert_float_eq(px(img, 0, 0, 0), 12);
        img = eval_image_free(img);

        /* To 3x1 of 5x3: offset (1, 1): 11 12 13. */
        img = ramp(5, 3);
        eval_crop_t sz = { .width = 3, .height = 1 };
        ck_assert_int_eq(eval_crop_apply(&sz, &img, err, sizeof(err)), 0);
        ck_assert_float_eq(px(img, 0, 0, 0), 11);
        ck_assert_float_eq(px(img, 2, 0, 0), 13);
        eval_crop_t big = { .width = 4, .height = 1 };
        ck_assert_int_eq(eval_crop_apply(&big, &img, err, sizeof(err)), -EINVAL);
        ck_assert_uint_eq(img->width, 3);  /* unchanged */
        eval_crop_t zero = { .use_fraction = true, .fraction = 0 };
        ck_assert_int_eq(eval_crop_apply(&zero, &img, err, sizeof(err)), -EINVAL);
        eval_image_free(img);
}
END_TEST

START_TEST(test_resize_bilinear_up_and_down) {
        eval_image_t *img = eval_image_new(2, 2);
        char err[256] = "";

        /* [[0, 10], [20, 30]] to 4x4: input x = out x * 0.5, the next
         * column clamped at the edge. Rows: 0 5 10 10 / 10 15 20 20 /
         * 20 25 30 30 / 20 25 30 30. */
        const float v[4] = { 0, 10, 20, 30 };
        for (int i = 0; i < 4; i++)
                for (unsigned c = 0; c < 3; c++)
                        img->data[i * 3 + c] = v[i];
        eval_resize_t up = { .width = 4, .height = 4 };
        ck_assert_int_eq(eval_resize_apply(&up, &img, err, sizeof(err)), 0);
        const float want[16] = { 0, 5, 10, 10, 10, 15, 20, 20, 20, 25, 30, 30, 20, 25, 30, 30 };
        for (uint32_t y = 0; y < 4; y++)
                for (uint32_t x = 0; x < 4; x++)
                        ck_assert_float_eq(px(img, x, y, 1), want[y * 4 + x]);
        img = eval_image_free(img);

        /* 4x4 ramp to 2x2 samples (0, 0), (2, 0), (0, 2), (2, 2) exactly. */
        img = ramp(4, 4);
        eval_resize_t down = { .width = 2, .height = 2 };
        ck_assert_int_eq(eval_resize_apply(&down, &img, err, sizeof(err)), 0);
        ck_assert_float_eq(px(img, 0, 0, 0), 0);
        ck_assert_float_eq(px(img, 1, 0, 0), 2);
        ck_assert_float_eq(px(img, 0, 1, 0), 20);
        ck_assert_float_eq(px(img, 1, 1, 1), 122);
        img = eval_image_free(img);
}
END_TEST

START_TEST(test_resize_aspect_preserving) {
        eval_image_t *img = ramp(4, 2);
        char err[256] = "";

        /* 4x2 to 8x8: ratios 2 (w) and 4 (h); the larger one wins: 16x8. */
        eval_resize_t r = { .width = 8, .height = 8, .aspect_preserving = true };
        ck_assert_int_eq(eval_resize_apply(&r, &img, err, sizeof(err)), 0);
        ck_assert_uint_eq(img->width, 16);
        ck_assert_uint_eq(img->height, 8);
        img = eval_image_free(img);
        /* 3x5 to 6x6: ratios 2 and 1.2: 6 x round(5 * 2) = 6x10. */
        img = ramp(3, 5);
        eval_resize_t r2 = { .width = 6, .height = 6, .aspect_preserving = true };
        ck_assert_int_eq(eval_resize_apply(&r2, &img, err, sizeof(err)), 0);
        ck_assert_uint_eq(img->width, 6);
        ck_assert_uint_eq(img->height, 10);
        eval_image_free(img);
}
END_TEST

START_TEST(test_pad_target_and_square) {
        eval_image_t *img = ramp(2, 1);
        char err[256] = "";

        /* 2x1 onto 4x4 of 7: left round(1) = 1, top round(1.5) = 2. */
        eval_pad_t p = { .width = 4, .height = 4, .value = 7 };
        ck_assert_int_eq(eval_pad_apply(&p, &img, err, sizeof(err)), 0);
        ck_assert_float_eq(px(img, 1, 2, 0), 0);
        ck_assert_float_eq(px(img, 2, 2, 0), 1);
        ck_assert_float_eq(px(img, 2, 2, 2), 201);
        ck_assert_float_eq(px(img, 0, 2, 0), 7);
        ck_assert_float_eq(px(img, 1, 1, 1), 7);
        ck_assert_float_eq(px(img, 3, 3, 2), 7);
        eval_pad_t small = { .width = 3, .height = 3 };
        ck_assert_int_eq(eval_pad_apply(&small, &img, err, sizeof(err)), -EINVAL);
        img = eval_image_free(img);

        /* 3x1 to a square: 3x3, top round(1) = 1. */
        img = ramp(3, 1);
        eval_pad_t sq = { .to_square = true };
        ck_assert_int_eq(eval_pad_apply(&sq, &img, err, sizeof(err)), 0);
        ck_assert_uint_eq(img->width, 3);
        ck_assert_uint_eq(img->height, 3);
        ck_assert_float_eq(px(img, 2, 1, 0), 2);
        ck_assert_float_eq(px(img, 2, 0, 0), 0);  /* padding value 0 */
        eval_image_free(img);
}
END_TEST

START_TEST(test_normalize_per_channel) {
        eval_image_t *img = eval_image_new(1, 1);
        char err[256] = "";

        img->data[0] = 50;
        img->data[1] = 60;
        img->data[2] = 70;
        /* (50 - 10, 60 - 20, 70 - 30) * 0.5 = 20 each. */
        eval_normalize_t n = { { 10, 20, 30 }, 0.5f };
        ck_assert_int_eq(eval_normalize_apply(&n, img, err, sizeof(err)), 0);
        for (int c = 0; c < 3; c++)
                ck_assert_float_eq(img->data[c], 20);
        eval_normalize_t bad = { { 0, 0, 0 }, NAN };
        ck_assert_int_eq(eval_normalize_apply(&bad, img, err, sizeof(err)), -EINVAL);
        eval_image_free(img);
}
END_TEST

START_TEST(test_convert_types) {
        eval_image_t *img = eval_image_new(2, 1);
        float f[6];
        uint8_t u[6];
        int8_t s[6];
        char err[256] = "";

        const float v[6] = { 3.0f, -100.0f, 1000.0f, 200.4f, -3.5f, 0.24f };
        memcpy(img->data, v, sizeof(v));
        ck_assert_int_eq(eval_image_to_tensor(img, 0, 0, 0, f, sizeof(f), err, sizeof(err)), 0);
        ck_assert_int_eq(memcmp(f, v, sizeof(v)), 0);
        /* uint8, scale 0.5, zero point 10: round(v / 0.5) + 10, clamped:
         * 16, 0, 255, 255, 3, 10. */
        ck_assert_int_eq(eval_image_to_tensor(img, 3, 0.5f, 10, u, sizeof(u), err, sizeof(err)), 0);
        const uint8_t wu[6] = { 16, 0, 255, 255, 3, 10 };
        ck_assert_int_eq(memcmp(u, wu, 6), 0);
        /* int8 without a scale: round(v) clamped: 3, -100, 127, 127, -4 (half
         * away from zero), 0. */
        ck_assert_int_eq(eval_image_to_tensor(img, 9, 0, 0, s, sizeof(s), err, sizeof(err)), 0);
        const int8_t ws[6] = { 3, -100, 127, 127, -4, 0 };
        ck_assert_int_eq(memcmp(s, ws, 6), 0);
        ck_assert_int_eq(eval_image_to_tensor(img, 3, 0, 0, u, 5, err, sizeof(err)), -EINVAL);
        ck_assert_int_eq(eval_image_to_tensor(img, 2, 0, 0, f, sizeof(f), err, sizeof(err)), -EINVAL);
        eval_image_free(img);
}
END_TEST

/* Run the default pipeline on a 1x1 image of `v` and return the tensor
 * byte / float. */
static eval_image_t *flat(uint32_t w, uint32_t h, float v) {
        eval_image_t *img = eval_image_new(w, h);
        for (size_t i = 0; i < (size_t) w * h * 3; i++)
                img->data[i] = v;
        return img;
}

START_TEST(test_default_preprocessing_round_trips_pixels) {
        eval_preprocess_t pp;
        char err[256] = "";

        /* float32: (v - 127.5) / 127.5: 255 -> 1, 0 -> -1. */
        ck_assert_int_eq(eval_preprocess_default(0, 2, 2, 0, 0, true, &pp), 0);
        ck_assert_uint_eq(pp.n_steps, 3);
        ck_assert_int_eq(pp.steps[0].kind, EVAL_STEP_CROP);
        ck_assert_float_eq(pp.steps[0].crop.fraction, 0.875f);
        eval_image_t *img = flat(8, 8, 255);
        ck_assert_int_eq(eval_preprocess_apply(&pp, &img, err, sizeof(err)), 0);
        ck_assert_uint_eq(img->width, 2);
        ck_assert_float_eq(img->data[0], 1.0f);
        img = eval_image_free(img);

        /* uint8 with MobileNet's quantization (1/128, 128): every pixel
         * value comes back unchanged; int8 (1/128, 0): pixel - 128. */
        ck_assert_int_eq(eval_preprocess_default(3, 1, 1, 0.0078125f, 128, false, &pp), 0);
        ck_assert_uint_eq(pp.n_steps, 2);
        eval_preprocess_t pp8;
        ck_assert_int_eq(eval_preprocess_default(9, 1, 1, 0.0078125f, 0, false, &pp8), 0);
        /* TF2 MobileNet's input (0.007843138, 127) too. */
        eval_preprocess_t pp2;
        ck_assert_int_eq(eval_preprocess_default(3, 1, 1, 0.007843137718737125f, 127, false, &pp2), 0);
        for (int v = 0; v < 256; v++) {
                uint8_t q;
                int8_t s;
                img = flat(1, 1, (float) v);
                ck_assert_int_eq(eval_preprocess_apply(&pp, &img, err, sizeof(err)), 0);
                ck_assert_int_eq(eval_image_to_tensor(img, 3, 0.0078125f, 128, &q, 1, err, sizeof(err)), -EINVAL);
                uint8_t q3[3];
                ck_assert_int_eq(eval_image_to_tensor(img, 3, 0.0078125f, 128, q3, 3, err, sizeof(err)), 0);
                q = q3[0];
                ck_assert_int_eq(q, v);
                img = eval_image_free(img);
                img = flat(1, 1, (float) v);
                ck_assert_int_eq(eval_preprocess_apply(&pp8, &img, err, sizeof(err)), 0);
                int8_t s3[3];
                ck_assert_int_eq(eval_image_to_tensor(img, 9, 0.0078125f, 0, s3, 3, err, sizeof(err)), 0);
                s = s3[0];
                ck_assert_int_eq(s, v - 128);
                img = eval_image_free(img);
                img = flat(1, 1, (float) v);
                ck_assert_int_eq(eval_preprocess_apply(&pp2, &img, err, sizeof(err)), 0);
                ck_assert_int_eq(eval_image_to_tensor(img, 3, 0.007843137718737125f, 127, q3, 3, err, sizeof(err)),
                                 0);
                ck_assert_int_eq(q3[0], v);
                img = eval_image_free(img);
        }
        ck_assert_int_eq(eval_preprocess_default(2, 1, 1, 0, 0, false, &pp), -EINVAL);
}
END_TEST

START_TEST(test_pipeline_on_png_file_bytes) {
        /* 8x8 PNG, pixel (x, y) = (8y + x, 2 (8y + x), 255 - (8y + x)).
         * crop 0.5 -> 4x4 from (2, 2); resize to 2x2 samples crop (0, 0),
         * (2, 0), (0, 2), (2, 2) = image (2, 2), (4, 2), (2, 4), (4, 4):
         * R = 18, 20, 34, 36; normalize mean (10, 0, 0) scale 0.5 then
         * uint8 without quantization: R 4, 5, 12, 13. */
        uint8_t rgb[8 * 8 * 3];
        for (int i = 0; i < 64; i++) {
                rgb[i * 3] = (uint8_t) i;
                rgb[i * 3 + 1] = (uint8_t) (2 * i);
                rgb[i * 3 + 2] = (uint8_t) (255 - i);
        }
        membuf_t m = png_make(8, 8, PNG_COLOR_TYPE_RGB, 8, rgb, NULL, 0, false);
        const char *json = "{\"steps\": ["
                           "{\"cropping_params\": {\"cropping_fraction\": 0.5}},"
                           "{\"resizingParams\": {\"targetSize\": {\"width\": 2, \"height\": 2}}},"
                           "{\"normalization_params\": {\"means\": {\"r_mean\": 10}, \"scale\": 0.5}}],"
                           "\"output_type\": \"uint8\"}";
        eval_preprocess_t pp;
        eval_image_t *img = NULL;
        char err[256] = "";
        uint8_t out[12];

        ck_assert_msg(eval_preprocess_parse_json(json, 0, &pp, err, sizeof(err)) == 0, "%s", err);
        ck_assert_uint_eq(pp.n_steps, 3);
        ck_assert_int_eq(pp.output_type, 3);
        ck_assert_int_eq(eval_image_decode(m.data, m.size, &img, err, sizeof(err)), 0);
        ck_assert_msg(eval_preprocess_apply(&pp, &img, err, sizeof(err)) == 0, "%s", err);
        ck_assert_int_eq(eval_image_to_tensor(img, pp.output_type, 0, 0, out, sizeof(out), err, sizeof(err)), 0);
        ck_assert_int_eq(out[0], 4);
        ck_assert_int_eq(out[3], 5);
        ck_assert_int_eq(out[6], 12);
        ck_assert_int_eq(out[9], 13);
        /* G: 2 * 18 * 0.5 = 18; B: (255 - 36) * 0.5 = 109.5 -> 110. */
        ck_assert_int_eq(out[1], 18);
        ck_assert_int_eq(out[11], 110);
        eval_image_free(img);
        free(m.data);
}
END_TEST

START_TEST(test_preprocess_json_errors) {
        eval_preprocess_t pp;
        char err[256] = "";

        ck_assert_int_eq(eval_preprocess_parse_json("{", 0, &pp, err, sizeof(err)), -EINVAL);
        ck_assert_int_eq(eval_preprocess_parse_json("{\"steps\": [{}]}", 0, &pp, err, sizeof(err)), -EINVAL);
        ck_assert_msg(strstr(err, "step 1") != NULL, "%s", err);
        ck_assert_int_eq(eval_preprocess_parse_json(
                "{\"steps\": [{\"resizing_params\": {\"target_size\": {\"width\": 0, \"height\": 2}}}]}", 0, &pp,
                err, sizeof(err)), -EINVAL);
        ck_assert_int_eq(eval_preprocess_parse_json("{\"steps\": [], \"output_type\": 2}", 0, &pp, err,
                                                    sizeof(err)), -EINVAL);
        ck_assert_int_eq(eval_preprocess_parse_json(
                "{\"steps\": [{\"padding_params\": {\"to_square\": true, \"padding_value\": 3}}]}", 9, &pp, err,
                sizeof(err)), 0);
        ck_assert(pp.steps[0].pad.to_square);
        ck_assert_int_eq(pp.steps[0].pad.value, 3);
        ck_assert_int_eq(pp.output_type, 9);
}
END_TEST

int main(void) {
        Suite *s = suite_create("eval-preprocess");
        TCase *tc = tcase_create("preprocess");
        tcase_add_test(tc, test_png_rgb_exact);
        tcase_add_test(tc, test_png_grey_palette_16bit_alpha_interlaced);
        tcase_add_test(tc, test_jpeg_flat_blocks);
        tcase_add_test(tc, test_decode_rejects_other_formats);
        tcase_add_test(tc, test_crop_fraction_and_size);
        tcase_add_test(tc, test_resize_bilinear_up_and_down);
        tcase_add_test(tc, test_resize_aspect_preserving);
        tcase_add_test(tc, test_pad_target_and_square);
        tcase_add_test(tc, test_normalize_per_channel);
        tcase_add_test(tc, test_convert_types);
        tcase_add_test(tc, test_default_preprocessing_round_trips_pixels);
        tcase_add_test(tc, test_pipeline_on_png_file_bytes);
        tcase_add_test(tc, test_preprocess_json_errors);
        suite_add_tcase(s, tc);
        SRunner *sr = srunner_create(s);
        srunner_run_all(sr, CK_NORMAL);
        int failed = srunner_ntests_failed(sr);
        srunner_free(sr);
        return failed ? 1 : 0;
}
