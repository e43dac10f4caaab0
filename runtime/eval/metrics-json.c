/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The seed's metrics messages in proto3 JSON: lowerCamelCase names, int64
 * as decimal strings, floats in their shortest round-tripping form (so
 * 0.5f prints 0.5, not 0.5000000000000000).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "eval.h"

static json_object *json_float(float v) {
        char buf[32];

        if (!isfinite(v))
                return json_object_new_string(isnan(v) ? "NaN" : v > 0 ? "Infinity" : "-Infinity");
        for (int prec = 6; prec <= 9; prec++) {
                snprintf(buf, sizeof(buf), "%.*g", prec, (double) v);
                if (strtof(buf, NULL) == v)
                        break;
        }
        return json_object_new_double_s((double) v, buf);
}

static json_object *json_double(double v) {
        char buf[40];

        if (!isfinite(v))
                return json_object_new_string(isnan(v) ? "NaN" : v > 0 ? "Infinity" : "-Infinity");
        for (int prec = 15; prec <= 17; prec++) {
                snprintf(buf, sizeof(buf), "%.*g", prec, v);
                if (strtod(buf, NULL) == v)
                        break;
        }
        return json_object_new_double_s(v, buf);
}

static json_object *json_int64(int64_t v) {
        char buf[24];
        snprintf(buf, sizeof(buf), "%" PRId64, v);
        return json_object_new_string(buf);
}

static void add(json_object *o, const char *key, json_object *v) {
        if (o && v)
                (void) json_object_object_add(o, key, v);
}

json_object *eval_json_latency(const eval_latency_metrics_t *m) {
        json_object *o = json_object_new_object();

        add(o, "lastUs", json_int64(m->last_us));
        add(o, "maxUs", json_int64(m->max_us));
        add(o, "minUs", json_int64(m->min_us));
        add(o, "sumUs", json_int64(m->sum_us));
        add(o, "avgUs", json_double(m->avg_us));
        add(o, "stdDeviationUs", json_int64(m->std_deviation_us));
        return o;
}

json_object *eval_json_accuracy(const eval_accuracy_metrics_t *m) {
        json_object *o = json_object_new_object();

        add(o, "maxValue", json_float(m->max_value));
        add(o, "minValue", json_float(m->min_value));
        add(o, "avgValue", json_double(m->avg_value));
        add(o, "stdDeviation", json_float(m->std_deviation));
        return o;
}

static json_object *process_metrics(const eval_latency_metrics_t *total, const char *key, json_object *stage) {
        json_object *o = json_object_new_object();

        add(o, "totalLatency", eval_json_latency(total));
        add(o, key, stage);
        return o;
}

json_object *eval_json_profiler(const eval_profiler_metrics_t *m) {
        json_object *o = json_object_new_object(), *errs = json_object_new_array();

        add(o, "referenceLatency", eval_json_latency(&m->reference_latency));
        add(o, "testLatency", eval_json_latency(&m->test_latency));
        for (size_t i = 0; errs && i < m->n_output_errors; i++)
                (void) json_object_array_add(errs, eval_json_accuracy(&m->output_errors[i]));
        add(o, "outputErrors", errs);
        return process_metrics(&m->total_latency, "inferenceProfilerMetrics", o);
}

static json_object *inference_metrics(int32_t n) {
        json_object *o = json_object_new_object();
        add(o, "numInferences", json_object_new_int(n));
        return o;
}

json_object *eval_json_classify(const eval_classify_metrics_t *m) {
        json_object *o = json_object_new_object(), *topk = json_object_new_object();
        json_object *acc = json_object_new_array();

        add(o, "preProcessingLatency", eval_json_latency(&m->pre_processing_latency));
        add(o, "inferenceLatency", eval_json_latency(&m->inference_latency));
        add(o, "inferenceMetrics", inference_metrics(m->num_inferences));
        for (int32_t i = 0; acc && i < m->k; i++)
                (void) json_object_array_add(acc, json_float(m->topk_accuracies[i]));
        add(topk, "topkAccuracies", acc);
        add(o, "topkAccuracyMetrics", topk);
        return process_metrics(&m->total_latency, "imageClassificationMetrics", o);
}

json_object *eval_json_ap(const eval_ap_metrics_t *m) {
        json_object *o = json_object_new_object(), *v = json_object_new_array();

        for (size_t i = 0; v && i < m->n; i++) {
                json_object *x = json_object_new_object();
                add(x, "iouThreshold", json_float(m->iou_thresholds[i]));
                add(x, "averagePrecision", json_float(m->average_precisions[i]));
                (void) json_object_array_add(v, x);
        }
        add(o, "individualAveragePrecisions", v);
        add(o, "overallMeanAveragePrecision", json_float(m->overall_mean_average_precision));
        return o;
}

json_object *eval_json_detect(const eval_detect_metrics_t *m) {
        json_object *o = json_object_new_object();

        add(o, "preProcessingLatency", eval_json_latency(&m->pre_processing_latency));
        add(o, "inferenceLatency", eval_json_latency(&m->inference_latency));
        add(o, "inferenceMetrics", inference_metrics(m->num_inferences));
        add(o, "averagePrecisionMetrics", eval_json_ap(&m->average_precision));
        return process_metrics(&m->total_latency, "objectDetectionMetrics", o);
}
