/* SPDX-License-Identifier: Apache-2.0 */
/* Private to ipc/: helpers shared by the reader and the writer. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "ipc.h"

/* The frame header is little-endian whatever the host is. */
static inline uint32_t ipc__le32_read(const uint8_t *p) {
        return (uint32_t) p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16 |
               (uint32_t) p[3] << 24;
}

static inline void ipc__le32_write(uint8_t *p, uint32_t v) {
        p[0] = (uint8_t) v;
        p[1] = (uint8_t) (v >> 8);
        p[2] = (uint8_t) (v >> 16);
        p[3] = (uint8_t) (v >> 24);
}

static inline size_t ipc__frame_limit(size_t max_frame) {
        return max_frame ? max_frame : IPC_FRAME_LIMIT_DEFAULT;
}
