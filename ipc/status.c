/* SPDX-License-Identifier: Apache-2.0 */
/* Placeholder, replaced by the ipc work. */
#include "ipc.h"
