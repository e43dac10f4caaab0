/* SPDX-License-Identifier: Apache-2.0 */
/* JPEG decoding with libjpeg-turbo, to 8-bit RGB. */
#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

#include <jpeglib.h>

#include "eval.h"

typedef struct jpeg_reader {
        struct jpeg_error_mgr mgr;  /* first: libjpeg hands us this pointer */
        jmp_buf jump;
        char *err;
        size_t err_size;
        eval_image_t *img;          /* survives the longjmp */
        uint8_t *row;
} jpeg_reader_t;

static void jpeg_on_error(j_common_ptr cinfo) {
        jpeg_reader_t *r = (jpeg_reader_t *) cinfo->err;
        char msg[JMSG_LENGTH_MAX];

        (*cinfo->err->format_message)(cinfo, msg);
        snprintf(r->err, r->err_size, "JPEG: %s", msg);
        longjmp(r->jump, 1);
}

static void jpeg_on_message(j_common_ptr cinfo) {
        /* Corrupt-data warnings: libjpeg recovers and keeps decoding, as
         * TFLite's decoder does; nothing to report from a library. */
}

int eval__image_decode_jpeg(const void *data, size_t size, eval_image_t **ret, char *err, size_t err_size) {
        struct jpeg_decompress_struct cinfo;
        jpeg_reader_t r = { .err = err, .err_size = err_size };
        volatile int rc = -EINVAL;

        if (size > (unsigned long) -1)
                return -E2BIG;
        cinfo.err = jpeg_std_error(&r.mgr);
        r.mgr.error_exit = jpeg_on_error;
        r.mgr.output_message = jpeg_on_message;
        if (setjmp(r.jump)) {
                rc = -EINVAL;
                goto done;
        }
        jpeg_create_decompress(&cinfo);
        jpeg_mem_src(&cinfo, data, (unsigned long) size);
        (void) jpeg_read_header(&cinfo, TRUE);
        if (cinfo.image_width > 32768 || cinfo.image_height > 32768) {
                snprintf(err, err_size, "JPEG: %ux%u is too large", cinfo.image_width, cinfo.image_height);
                rc = -E2BIG;
                goto done;
        }
        /* TFLite's evaluation tool decodes with the accurate integer DCT;
         * the fast ones shift pixel values enough to move top-1 results. */
        cinfo.out_color_space = JCS_RGB;
        cinfo.dct_method = JDCT_ISLOW;
        (void) jpeg_start_decompress(&cinfo);
        if (cinfo.output_components != 3) {
                snprintf(err, err_size, "JPEG: %d components after conversion to RGB", cinfo.output_components);
                goto done;
        }
        r.img = eval_image_new(cinfo.output_width, cinfo.output_height);
        r.row = malloc((size_t) cinfo.output_width * 3);
        if (!r.img || !r.row) {
                rc = -ENOMEM;
                goto done;
        }
        while (cinfo.output_scanline < cinfo.output_height) {
                JSAMPROW rows[1] = { r.row };
                uint32_t y = cinfo.output_scanline;

                if (jpeg_read_scanlines(&cinfo, rows, 1) != 1)
                        break;
                float *out = eval_image_at(r.img, 0, y, 0);
                for (size_t i = 0; i < (size_t) cinfo.output_width * 3; i++)
                        out[i] = r.row[i];
        }
        (void) jpeg_finish_decompress(&cinfo);
        *ret = r.img;
        r.img = NULL;
        rc = 0;
done:
        jpeg_destroy_decompress(&cinfo);
        free(r.row);
        eval_image_free(r.img);
        return rc;
}
