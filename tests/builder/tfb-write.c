/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tfb-write NAME PATH: write one of tfb-models.c's stock models to PATH,
 * for the tests that are not C (tests/python). Exit 0, or 1 with a message.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tfb-models.h"

static const struct {
        const char *name;
        uint8_t *(*build)(size_t *ret_size);
} stock[] = {
        { "affine", tfb_model_affine },
        { "counter", tfb_model_counter },
        { "gather_string", tfb_model_gather_string },
        { "string_0d", tfb_model_string_0d },
        { "counter_string", tfb_model_counter_string },
};

int main(int argc, char **argv) {
        if (argc != 3) {
                fprintf(stderr, "usage: tfb-write NAME PATH\n");
                return 1;
        }
        for (size_t k = 0; k < sizeof(stock) / sizeof(stock[0]); k++) {
                size_t size;
                uint8_t *bytes;
                FILE *f;
                int ok;

                if (strcmp(argv[1], stock[k].name) != 0)
                        continue;
                bytes = stock[k].build(&size);
                f = bytes ? fopen(argv[2], "wb") : NULL;
                ok = f && fwrite(bytes, 1, size, f) == size;
                if (f && fclose(f) != 0)
                        ok = 0;
                free(bytes);
                if (!ok) {
                        fprintf(stderr, "tfb-write: cannot write %s\n", argv[2]);
                        return 1;
                }
                return 0;
        }
        fprintf(stderr, "tfb-write: no stock model %s\n", argv[1]);
        return 1;
}
