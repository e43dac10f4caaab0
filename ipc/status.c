/* SPDX-License-Identifier: Apache-2.0 */
/* The one table between negative errnos and the wire Status enum. */
#include <errno.h>

#include "cleanup.h"
#include "ipc.h"

static const struct {
        Acceld__Status status;
        const char *name;
        int err;
} status_table[] = {
#define IPC_STATUS(n, e) { ACCELD__STATUS__##n, #n, e },
#include "status-list.inc"
#undef IPC_STATUS
};

/* Errnos that map to a status whose to_errno() value is another errno. */
static const struct {
        int err;
        Acceld__Status status;
} errno_aliases[] = {
        { EPERM, ACCELD__STATUS__PERMISSION_DENIED },
#if ENOTSUP != EOPNOTSUPP
        { ENOTSUP, ACCELD__STATUS__UNSUPPORTED },
#endif
        { EBUSY, ACCELD__STATUS__RESOURCE_EXHAUSTED_TRANSIENT },
        { ENOSPC, ACCELD__STATUS__RESOURCE_EXHAUSTED_PERSISTENT },
        { EDQUOT, ACCELD__STATUS__RESOURCE_EXHAUSTED_PERSISTENT },
        { EBADMSG, ACCELD__STATUS__PROTOCOL_ERROR },
        { EMSGSIZE, ACCELD__STATUS__PROTOCOL_ERROR },
};

Acceld__Status ipc_status_from_errno(int neg_errno) {
        /* A positive value is a caller bug, not a success. */
        if (neg_errno > 0)
                return ACCELD__STATUS__GENERAL_FAILURE;

        for (size_t i = 0; i < ELEMENTSOF(status_table); i++)
                if (status_table[i].err == -neg_errno)
                        return status_table[i].status;
        for (size_t i = 0; i < ELEMENTSOF(errno_aliases); i++)
                if (errno_aliases[i].err == -neg_errno)
                        return errno_aliases[i].status;
        return ACCELD__STATUS__GENERAL_FAILURE;
}

int ipc_status_to_errno(Acceld__Status s) {
        for (size_t i = 0; i < ELEMENTSOF(status_table); i++)
                if (status_table[i].status == s)
                        return -status_table[i].err;
        /* A status from a newer peer that we do not know: a failure all the same. */
        return -EIO;
}

const char *ipc_status_to_string(Acceld__Status s) {
        for (size_t i = 0; i < ELEMENTSOF(status_table); i++)
                if (status_table[i].status == s)
                        return status_table[i].name;
        return "UNKNOWN";
}
