/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The XNNPACK delegate: a TfLiteDelegate that carries XNNPACK settings.
 * Ours are told apart from any other library's by address (a list of the
 * live ones), never by reading a foreign delegate's fields.
 */
#include <pthread.h>
#include <stdlib.h>

#include "tflite-internal.h"

typedef struct xnn_delegate {
        TfLiteDelegate d;               /* first: the pointer handed out */
        TfLiteXNNPackDelegateOptions options;
        struct xnn_delegate *next;
} xnn_delegate_t;

static pthread_mutex_t delegates_lock = PTHREAD_MUTEX_INITIALIZER;
static xnn_delegate_t *delegates;

static TfLiteStatus xnn_prepare(TfLiteContext *context, TfLiteDelegate *delegate) {
        /* Never called by this library; a program that calls it directly
         * learns it cannot be applied that way. */
        return kTfLiteDelegateError;
}

TfLiteXNNPackDelegateOptions TfLiteXNNPackDelegateOptionsDefault(void) {
        return (TfLiteXNNPackDelegateOptions) { .num_threads = 0, .flags = 0 };
}

TfLiteDelegate *TfLiteXNNPackDelegateCreate(const TfLiteXNNPackDelegateOptions *options) {
        xnn_delegate_t *x = calloc(1, sizeof(*x));
        if (!x)
                return NULL;
        x->d = TfLiteDelegateCreate();
        x->d.data_ = x;
        x->d.Prepare = xnn_prepare;
        x->options = options ? *options : TfLiteXNNPackDelegateOptionsDefault();
        (void) pthread_mutex_lock(&delegates_lock);
        x->next = delegates;
        delegates = x;
        (void) pthread_mutex_unlock(&delegates_lock);
        return &x->d;
}

void *TfLiteXNNPackDelegateGetThreadPool(TfLiteDelegate *delegate) {
        return NULL;
}

void TfLiteXNNPackDelegateDelete(TfLiteDelegate *delegate) {
        if (!delegate)
                return;
        (void) pthread_mutex_lock(&delegates_lock);
        for (xnn_delegate_t **p = &delegates; *p; p = &(*p)->next)
                if (&(*p)->d == delegate) {
                        xnn_delegate_t *x = *p;
                        *p = x->next;
                        free(x);
                        break;
                }
        (void) pthread_mutex_unlock(&delegates_lock);
}

bool tfl__delegate_xnnpack(const TfLiteDelegate *d, TfLiteXNNPackDelegateOptions *ret) {
        bool found = false;
        (void) pthread_mutex_lock(&delegates_lock);
        for (xnn_delegate_t *x = delegates; x; x = x->next)
                if (&x->d == d) {
                        if (ret)
                                *ret = x->options;
                        found = true;
                        break;
                }
        (void) pthread_mutex_unlock(&delegates_lock);
        return found;
}
