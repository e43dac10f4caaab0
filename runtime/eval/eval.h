/* SPDX-License-Identifier: Apache-2.0 */
/*
 * eval: TensorFlow Lite's evaluation stages (proto/evaluation.proto, the
 * seed's evaluation_config.proto) for acceld, as the static library
 * accel_eval.
 *
 *   image preprocessing   eval_image_load() + eval_preprocess_apply() +
 *                         eval_image_to_tensor()   (ImagePreprocessingParams)
 *   latency / accuracy    eval_stats_t -> LatencyMetrics, AccuracyMetrics
 *   inference profiler    eval_profiler_run()      (InferenceProfilerMetrics)
 *   top-K accuracy        eval_topk_t              (TopkAccuracyEvalMetrics)
 *   image classification  eval_classify_run()      (ImageClassificationMetrics)
 *   object detection      eval_detection_decode(), eval_ap_t,
 *                         eval_detect_run()        (ObjectDetection*Metrics)
 *
 * Models run behind eval_runner_t, so the same stages drive the in-process
 * runtime (eval_runner_local_new()) and, from accelctl, acceld through
 * libaccel.
 *
 * Conventions (docs/HACKING.md, STYLE.md): functions return 0 (or a count)
 * or a negative errno; output parameters are written only on success;
 * functions that take `err`/`err_size` put a sentence there on failure;
 * every _free() accepts NULL and returns NULL. Nothing here logs or keeps
 * global state; objects are used by one thread at a time.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

/* ---- running statistics (stats.c) ---- */

/* count, last, min, max, sum and a numerically stable mean and variance
 * (Welford) of a series of values. Zero-initialise, then eval_stats_add(). */
typedef struct eval_stats {
        uint64_t count;
        double last, min, max, sum;
        double mean, m2;
} eval_stats_t;

void eval_stats_add(eval_stats_t *s, double value);
/* Population standard deviation (divides by count, as TFLite's Stat does);
 * 0 with fewer than two values. */
double eval_stats_std_deviation(const eval_stats_t *s);

/* The seed's LatencyMetrics: microseconds. */
typedef struct eval_latency_metrics {
        int64_t last_us, max_us, min_us, sum_us;
        double avg_us;
        int64_t std_deviation_us;  /* truncated, as TFLite's int64 Stat */
} eval_latency_metrics_t;

/* The seed's AccuracyMetrics. */
typedef struct eval_accuracy_metrics {
        float max_value, min_value;
        double avg_value;
        float std_deviation;
} eval_accuracy_metrics_t;

/* Latency metrics of a series of microsecond values (all zero when empty). */
void eval_stats_latency(const eval_stats_t *s, eval_latency_metrics_t *ret);
/* Accuracy metrics of a series of values (all zero when empty). */
void eval_stats_accuracy(const eval_stats_t *s, eval_accuracy_metrics_t *ret);

/* ---- images (image.c, image-png.c, image-jpeg.c) ---- */

/* An RGB image: height * width * 3 floats, row-major, channel last,
 * values 0..255 as decoded (float so that every step stays exact). */
typedef struct eval_image {
        uint32_t width, height;
        float *data;  /* owned */
} eval_image_t;

/* A zeroed image of the given size (width, height >= 1). NULL on ENOMEM
 * or an impossible size. */
eval_image_t *eval_image_new(uint32_t width, uint32_t height);
eval_image_t *eval_image_free(eval_image_t *img);

/* Pixel (x, y) channel c. No bounds checks. */
static inline float *eval_image_at(const eval_image_t *img, uint32_t x, uint32_t y, unsigned c) {
        return img->data + ((size_t) y * img->width + x) * 3 + c;
}

/*
 * Decode a JPEG (libjpeg-turbo, accurate integer DCT, converted to RGB) or
 * PNG (libpng; grey, palette and 16-bit expanded to 8-bit RGB, alpha
 * dropped) from memory, recognised by its signature. *ret is the caller's.
 * 0, -EINVAL (not a JPEG or PNG, or corrupt; message in err), -E2BIG
 * (larger than 32768 x 32768) or -ENOMEM.
 */
int eval_image_decode(const void *data, size_t size, eval_image_t **ret, char *err, size_t err_size);
/* The same for a file; -errno of reading it too. */
int eval_image_load(const char *path, eval_image_t **ret, char *err, size_t err_size);

/* Used by eval_image_decode(); the same contract. */
int eval__image_decode_png(const void *data, size_t size, eval_image_t **ret, char *err, size_t err_size);
int eval__image_decode_jpeg(const void *data, size_t size, eval_image_t **ret, char *err, size_t err_size);

/* ---- image preprocessing (preprocess.c, crop.c, resize.c, pad.c,
 * normalize.c, convert.c): ImagePreprocessingParams ---- */

typedef enum eval_step_kind {
        EVAL_STEP_CROP,
        EVAL_STEP_RESIZE,
        EVAL_STEP_PAD,
        EVAL_STEP_NORMALIZE,
        _EVAL_STEP_MAX,
} eval_step_kind_t;

/* CroppingParams: a centred crop. With `fraction` (0 < f <= 1) each side
 * becomes round(f * side), else exactly width x height; `square` then makes
 * both the shorter of the two. The crop must fit in the image; its offset
 * is round((side - crop) / 2). */
typedef struct eval_crop {
        bool use_fraction;
        float fraction;
        uint32_t width, height;
        bool square;
} eval_crop_t;

/* ResizingParams: bilinear (align_corners and half_pixel_centers false,
 * TFLite's ResizeBilinear defaults) to width x height; aspect_preserving
 * scales both sides by the larger of the two ratios, so one side is exact
 * and the other round(side * ratio), not smaller than its target. */
typedef struct eval_resize {
        uint32_t width, height;
        bool aspect_preserving;
} eval_resize_t;

/* PaddingParams: centre the image on a width x height canvas (or a square
 * of the longer side with to_square) filled with `value`; the left/top
 * padding is round((target - side) / 2). The target must not be smaller
 * than the image. */
typedef struct eval_pad {
        bool to_square;
        uint32_t width, height;
        int32_t value;
} eval_pad_t;

/* NormalizationParams: out = (in - mean[c]) * scale (channelwise_mean sets
 * all three means). */
typedef struct eval_normalize {
        float mean[3];
        float scale;
} eval_normalize_t;

typedef struct eval_step {
        eval_step_kind_t kind;
        union {
                eval_crop_t crop;
                eval_resize_t resize;
                eval_pad_t pad;
                eval_normalize_t normalize;
        };
} eval_step_t;

#define EVAL_MAX_STEPS 16

/* ImagePreprocessingParams: steps in order and the TFLite type of the
 * result (output_type; float32, uint8 or int8). */
typedef struct eval_preprocess {
        eval_step_t steps[EVAL_MAX_STEPS];
        size_t n_steps;
        int32_t output_type;
} eval_preprocess_t;

/* Apply one step, replacing *img on success (the old image is freed).
 * 0, -EINVAL (bad parameters or a crop/pad that does not fit; message) or
 * -ENOMEM. On failure *img is unchanged. */
int eval_crop_apply(const eval_crop_t *p, eval_image_t **img, char *err, size_t err_size);
int eval_resize_apply(const eval_resize_t *p, eval_image_t **img, char *err, size_t err_size);
int eval_pad_apply(const eval_pad_t *p, eval_image_t **img, char *err, size_t err_size);
/* In place; -EINVAL only for a scale that is not finite. */
int eval_normalize_apply(const eval_normalize_t *p, eval_image_t *img, char *err, size_t err_size);

/* All steps in order; the same contract. */
int eval_preprocess_apply(const eval_preprocess_t *p, eval_image_t **img, char *err, size_t err_size);

/*
 * The defaults of TFLite's image-classification tool for an input of
 * width x height and TFLite type `type` with quantization scale / zero
 * point: a centre crop of 0.875, a resize to the input size, and a
 * normalisation to the values the model expects: float32 (v - 127.5) /
 * 127.5; uint8 and int8 with a scale: (v - z) * scale, z being the zero
 * point seen as a uint8 (zero_point, or zero_point + 128 for int8), so that
 * quantizing gives back the pixel (uint8) or pixel - 128 (int8); without a
 * scale: nothing (uint8) or v - 128 (int8). `crop` false leaves out the
 * crop (detection: the whole image is resized). 0 or -EINVAL (unsupported
 * type, empty size).
 */
int eval_preprocess_default(int32_t type, uint32_t width, uint32_t height, float scale, int32_t zero_point,
                            bool crop, eval_preprocess_t *ret);

/*
 * Read ImagePreprocessingParams from JSON (proto field names, snake_case or
 * lowerCamelCase): {"steps": [{"cropping_params": {"cropping_fraction":
 * 0.875}}, {"resizing_params": {"target_size": {"width": 224, "height":
 * 224}}}, ...], "output_type": 1}. output_type may be missing (then
 * `default_type`). 0 or -EINVAL (message).
 */
int eval_preprocess_parse_json(const char *json, int32_t default_type, eval_preprocess_t *ret, char *err,
                               size_t err_size);

/*
 * Convert an image into a tensor buffer of TFLite type `type` (float32,
 * uint8, int8): float32 copies; the integer types quantize, q = round(v /
 * scale) + zero_point when scale > 0, else q = round(v), clamped to the
 * type's range. `size` must be width * height * 3 elements. 0 or -EINVAL
 * (type unsupported or size mismatch; message).
 */
int eval_image_to_tensor(const eval_image_t *img, int32_t type, float scale, int32_t zero_point, void *data,
                         size_t size, char *err, size_t err_size);

/* ---- models behind one interface (runner.c, runner-local.c) ---- */

#define EVAL_MAX_RANK 8

/* A model input or output as a runner exposes it. `type` is TFLite's
 * TensorType number; `data` belongs to the runner: inputs may be written
 * until the next invoke, outputs are valid until the next invoke. */
typedef struct eval_tensor {
        int32_t type;
        int32_t rank;
        int32_t dims[EVAL_MAX_RANK];
        float scale;       /* 0 when not quantized */
        int32_t zero_point;
        size_t bytes;
        void *data;
        const char *name;  /* never NULL */
} eval_tensor_t;

typedef struct eval_runner eval_runner_t;

typedef struct eval_runner_ops {
        int32_t (*input_count)(eval_runner_t *r);
        int32_t (*output_count)(eval_runner_t *r);
        int (*input)(eval_runner_t *r, int32_t i, eval_tensor_t *ret);
        int (*output)(eval_runner_t *r, int32_t i, eval_tensor_t *ret);
        int (*invoke)(eval_runner_t *r);
        /* The last failure as a sentence; never NULL. */
        const char *(*last_error)(eval_runner_t *r);
        void (*free)(eval_runner_t *r);
} eval_runner_ops_t;

/* Implementations embed this as their first member. */
struct eval_runner {
        const eval_runner_ops_t *ops;
        char description[128];  /* "local, xnnpack 31 nodes": what runs, for tables */
};

int32_t eval_runner_input_count(eval_runner_t *r);
int32_t eval_runner_output_count(eval_runner_t *r);
/* 0, or -EINVAL for an index out of range. */
int eval_runner_input(eval_runner_t *r, int32_t i, eval_tensor_t *ret);
int eval_runner_output(eval_runner_t *r, int32_t i, eval_tensor_t *ret);
/* Run once. 0 or a negative errno (eval_runner_last_error() says why). */
int eval_runner_invoke(eval_runner_t *r);
const char *eval_runner_last_error(eval_runner_t *r);
eval_runner_t *eval_runner_free(eval_runner_t *r);

/* Element count of a tensor (product of dims; 1 for rank 0). */
size_t eval_tensor_count(const eval_tensor_t *t);
/* Element k as a real number: dequantized when scale > 0. float32,
 * float64, uint8, int8, int16, int32, int64 and bool; 0 for other types. */
double eval_tensor_value(const eval_tensor_t *t, size_t k);

/*
 * The in-process runtime (runtime/rt.h): load `model_path`, apply
 * `settings` (a TFLiteSettings as JSON text starting with '{', or a file
 * holding it; NULL: the runtime's default, the reference kernels), create
 * the interpreter and allocate its tensors. *ret is the caller's. 0 or a
 * negative errno with a message.
 */
int eval_runner_local_new(const char *model_path, const char *settings, eval_runner_t **ret, char *err,
                          size_t err_size);

/*
 * A runner over an interpreter the caller created and allocated (borrowed:
 * it must outlive the runner, which does not free it). `what` starts the
 * description ("acceld", "reference"). acceld's Evaluate request runs the
 * inference profiler this way on its own instances. 0 or -EINVAL/-ENOMEM.
 */
struct rt_interp;
int eval_runner_interp_new(struct rt_interp *interp, const char *what, eval_runner_t **ret);

/* ---- seedable random numbers (rng.c) ---- */

typedef struct eval_rng {
        uint64_t state;
} eval_rng_t;

/* Same seed, same sequence, on every machine (SplitMix64). */
void eval_rng_seed(eval_rng_t *r, uint64_t seed);
uint64_t eval_rng_next(eval_rng_t *r);
/* Uniform in [0, 1). */
double eval_rng_uniform(eval_rng_t *r);

/* Fill a tensor with random values for its type: float32 uniform in
 * [-1, 1), uint8/int8/int16 over their whole range, int32/int64 in
 * [0, 1000) (indices and token ids), bool 0/1. 0 or -ENOTSUP (other types). */
int eval_tensor_randomize(eval_tensor_t *t, eval_rng_t *rng);

/* ---- inference profiler (profiler.c): InferenceProfilerMetrics ---- */

typedef struct eval_profiler_metrics {
        eval_latency_metrics_t total_latency;  /* per run: inputs, both invokes, diff */
        eval_latency_metrics_t reference_latency, test_latency;
        eval_accuracy_metrics_t *output_errors;  /* one per output, owned */
        size_t n_output_errors;
        int32_t runs;
} eval_profiler_metrics_t;

void eval_profiler_metrics_done(eval_profiler_metrics_t *m);

/*
 * TFLite's inference-diff: `runs` times, fill every input of `reference`
 * with random values (eval_tensor_randomize() from `seed`), copy them into
 * `test`, invoke both (timed), and record per output the mean over its
 * elements of |R[i] - T[i]| (dequantized values). The two models must have
 * the same inputs and outputs. progress (may be NULL) is called after each
 * run. *ret is initialised by this call on success (release with
 * eval_profiler_metrics_done()). 0 or a negative errno with a message.
 */
int eval_profiler_run(eval_runner_t *reference, eval_runner_t *test, int32_t runs, uint64_t seed,
                      void (*progress)(void *user, size_t done, size_t total), void *user,
                      eval_profiler_metrics_t *ret, char *err, size_t err_size);

/* ---- one output against its reference (compare.c) ----
 *
 * The per-element error statistics both the inference profiler and the
 * mini-benchmark's validation (daemon/bench/worker.c) use: an AccuracyMetrics of
 * |reference - test| over the elements (max_value is the maximum absolute
 * error, avg_value the mean the profiler records per run), the mean squared
 * error, and, when the reference looks like a probability distribution, the
 * symmetric KL divergence. */

typedef struct eval_output_error {
        eval_accuracy_metrics_t abs_error;  /* of |R[i] - T[i]|, dequantized */
        double mse;
        bool is_probability;  /* every row of the reference in [0, 1], summing to 1 within 1% */
        double kl;            /* symmetric KL, mean over rows; 0 when not a distribution */
        bool bytewise;        /* a type without numeric values, compared as bytes */
} eval_output_error_t;

/*
 * Compare `test` with `reference` (same type and element count). Values are
 * dequantized (eval_tensor_value()); a NaN difference counts as infinite.
 * `row` is the last dimension used for the distribution check (> 1; 0: the
 * reference's last dimension). KL(p||q) + KL(q||p) is taken with values
 * clamped to 1e-7 and averaged over rows; only float32/float64 or quantized
 * outputs are checked for being a distribution. Types without numeric values
 * (strings, ...) are compared bytewise: bytewise is set and max_value is 0
 * or 1. 0 or -EINVAL (NULL, a type or size mismatch).
 */
int eval_output_compare(const eval_tensor_t *reference, const eval_tensor_t *test, size_t row,
                        eval_output_error_t *ret);

/* Whether eval_tensor_value() reads this TFLite type. */
bool eval_type_is_numeric(int32_t type);
/* Bytes of one element of a TFLite type; 0 when unknown or not fixed. */
size_t eval_type_size(int32_t type);

/* ---- top-K accuracy (topk.c): TopkAccuracyEvalMetrics ---- */

typedef struct eval_topk {
        int32_t k;
        uint64_t *hits;   /* hits[i]: runs whose label was within the top i + 1 */
        uint64_t runs;
} eval_topk_t;

/* k >= 1. 0, -EINVAL or -ENOMEM. */
int eval_topk_init(eval_topk_t *t, int32_t k);
void eval_topk_done(eval_topk_t *t);

/*
 * The indices of the `k` largest of `n` scores, largest first (equal scores:
 * lower index first), into ret (k entries). k <= n.
 */
void eval_topk_indices(const float *scores, size_t n, int32_t k, int32_t *ret);

/* Record one run: `label` is the ground-truth index into scores[0..n).
 * 0, or -EINVAL when k > n or the label is out of range. */
int eval_topk_add(eval_topk_t *t, const float *scores, size_t n, int32_t label);

/* topk_accuracies[i] = hits[i] / runs, into ret (k floats; zeros before any
 * run). */
void eval_topk_accuracies(const eval_topk_t *t, float *ret);

/* ---- labels (labels.c, metadata.c) ---- */

typedef struct eval_labels {
        char **v;  /* owned strings */
        size_t n;
} eval_labels_t;

void eval_labels_done(eval_labels_t *l);

/* One entry per line (trailing \r and blanks removed; a final empty line
 * does not count). 0, -EINVAL (empty), -ENOMEM. */
int eval_labels_parse(const char *text, size_t size, eval_labels_t *ret);
int eval_labels_load(const char *path, eval_labels_t *ret, char *err, size_t err_size);

/* Index of `label` in `l`: an exact match, else a match ignoring case and
 * surrounding blanks, else -ENOENT. */
int eval_labels_find(const eval_labels_t *l, const char *label);

/*
 * The label file of a model's TFLite Metadata: the "TFLITE_METADATA"
 * buffer names its associated files; the file of type TENSOR_AXIS_LABELS
 * (else TENSOR_VALUE_LABELS) of output `output` (else of any output) is
 * read from the zip archive appended to the flatbuffer (libzip). *ret_name
 * (may be NULL) gets the file's name (owned). 0, -ENOENT (no metadata or no
 * label file; message), -EINVAL (bad archive) or -ENOMEM.
 */
int eval_labels_from_model(const char *model_path, int32_t output, eval_labels_t *ret, char **ret_name,
                           char *err, size_t err_size);

/* ---- image lists (images.c) ---- */

/* The .jpg, .jpeg and .png files (any case) of a directory, as paths
 * "dir/name", sorted by name (strcmp). 0 (also for none), -errno of
 * opendir, -ENOMEM. */
int eval_images_list(const char *dir, eval_labels_t *ret);
/* The file name part of a path (borrowed). */
const char *eval_path_basename(const char *path);

/* ---- image classification (classify.c): ImageClassificationMetrics ---- */

typedef struct eval_classify_image {
        const char *path;
        int32_t label;           /* ground truth index */
        const int32_t *top;      /* k indices, best first */
        const float *scores;     /* their scores */
        int32_t k;
} eval_classify_image_t;

typedef struct eval_classify_params {
        const eval_labels_t *images;        /* paths */
        const eval_labels_t *ground_truth;  /* one label per image, same order */
        const eval_labels_t *labels;        /* the model's output classes */
        int32_t k;                          /* 0: 5 */
        const eval_preprocess_t *preprocess;  /* NULL: eval_preprocess_default() */
        /* Called after each image (may be NULL). */
        void (*on_image)(void *user, size_t done, size_t total, const eval_classify_image_t *image);
        void *user;
} eval_classify_params_t;

typedef struct eval_classify_metrics {
        eval_latency_metrics_t total_latency;  /* whole image: load to top-k */
        eval_latency_metrics_t pre_processing_latency, inference_latency;
        int32_t num_inferences;
        float *topk_accuracies;  /* k, owned */
        int32_t k;
} eval_classify_metrics_t;

void eval_classify_metrics_done(eval_classify_metrics_t *m);

/*
 * TFLite's image-classification evaluation: for each image, decode,
 * preprocess for input 0, invoke, and score output 0 ([1, n_labels] or
 * [n_labels]) with top-K. 0 or a negative errno with a message (naming the
 * image when one fails).
 */
int eval_classify_run(eval_runner_t *r, const eval_classify_params_t *p, eval_classify_metrics_t *ret,
                      char *err, size_t err_size);

/* ---- object detection (detection.c, groundtruth.c, ap.c, detect.c) ---- */

/* ObjectDetectionResult.ObjectInstance.NormalizedBoundingBox */
typedef struct eval_box {
        float top, bottom, left, right;
} eval_box_t;

/* ObjectDetectionResult.ObjectInstance */
typedef struct eval_object {
        int32_t class_id;
        eval_box_t box;
        float score;  /* 1 for ground truth */
} eval_object_t;

/* ObjectDetectionResult */
typedef struct eval_od_result {
        eval_object_t *objects;  /* owned */
        size_t n_objects;
        char *image_name;        /* owned, may be NULL */
        int64_t image_id;
} eval_od_result_t;

void eval_od_result_done(eval_od_result_t *r);

/* ObjectDetectionGroundTruth */
typedef struct eval_od_ground_truth {
        eval_od_result_t *results;
        size_t n_results;
} eval_od_ground_truth_t;

void eval_od_ground_truth_done(eval_od_ground_truth_t *g);

/*
 * Read ObjectDetectionGroundTruth from JSON with the proto's field names
 * (snake_case as in the .proto, or proto3 JSON's lowerCamelCase):
 *   {"detection_results": [{"image_name": "a.png", "objects": [
 *     {"class_id": 17, "bounding_box": {"normalized_top": 0.1,
 *      "normalized_bottom": 0.9, "normalized_left": 0.2,
 *      "normalized_right": 0.8}}]}]}
 * score defaults to 1, image_id to 0 (a number or a decimal string). 0 or
 * -EINVAL with a message naming the offending entry, -ENOMEM.
 */
int eval_od_ground_truth_parse(const char *json, eval_od_ground_truth_t *ret, char *err, size_t err_size);
int eval_od_ground_truth_load(const char *path, eval_od_ground_truth_t *ret, char *err, size_t err_size);
/* The entry for an image name, or NULL. */
const eval_od_result_t *eval_od_ground_truth_find(const eval_od_ground_truth_t *g, const char *image_name);

/* Intersection over union of two boxes; 0 when either is empty. */
float eval_box_iou(const eval_box_t *a, const eval_box_t *b);

/*
 * Decode TFLite_Detection_PostProcess outputs: boxes [1, N, 4] (ymin,
 * xmin, ymax, xmax, normalized), classes [1, N], scores [1, N], count [1]
 * (float32, or quantized). Objects get class + class_offset; only the first
 * min(count, N) are read. 0 or -EINVAL (shapes; message), -ENOMEM.
 */
int eval_detection_decode(const eval_tensor_t *boxes, const eval_tensor_t *classes, const eval_tensor_t *scores,
                          const eval_tensor_t *count, int32_t class_offset, eval_od_result_t *ret, char *err,
                          size_t err_size);

/* ObjectDetectionAveragePrecisionParams */
typedef struct eval_ap_params {
        int32_t num_classes;        /* 0: from the data; else class ids must be below */
        const float *iou_thresholds;  /* NULL/0: 0.5:0.05:0.95 */
        size_t n_iou_thresholds;
        int32_t num_recall_points;  /* 0: 100 (101-point interpolation) */
} eval_ap_params_t;

/* ObjectDetectionAveragePrecisionMetrics */
typedef struct eval_ap_metrics {
        float *iou_thresholds;      /* owned, n entries */
        float *average_precisions;  /* owned, n entries: mean over classes */
        size_t n;
        float overall_mean_average_precision;
} eval_ap_metrics_t;

void eval_ap_metrics_done(eval_ap_metrics_t *m);

typedef struct eval_ap eval_ap_t;

/* 0, -EINVAL (threshold outside (0, 1], negative counts), -ENOMEM. */
int eval_ap_new(const eval_ap_params_t *p, eval_ap_t **ret);
eval_ap_t *eval_ap_free(eval_ap_t *ap);

/* Record one image: its predictions and its ground truth. 0, -EINVAL
 * (a class id out of range), -ENOMEM. */
int eval_ap_add(eval_ap_t *ap, const eval_od_result_t *predicted, const eval_od_result_t *ground_truth);

/*
 * COCO-style average precision over everything added: per IoU threshold and
 * class, predictions sorted by score (highest first) are matched greedily
 * to the unmatched ground-truth box of the same class and image with the
 * highest IoU >= threshold; the precision/recall curve is interpolated at
 * num_recall_points + 1 recall levels (the highest precision at any recall
 * >= the level); classes without ground truth are left out of the mean over
 * classes (0 when no class has any). overall = mean over thresholds. *ret
 * is initialised here. 0 or -ENOMEM.
 */
int eval_ap_compute(const eval_ap_t *ap, eval_ap_metrics_t *ret);

/* One point of a precision/recall curve. */
typedef struct eval_pr {
        double precision, recall;
} eval_pr_t;

/* Interpolated AP of a curve: the mean over recall levels i / points (i =
 * 0..points) of the highest precision at a recall >= the level. */
double eval_ap_from_pr(const eval_pr_t *pr, size_t n, int32_t points);

typedef struct eval_detect_image {
        const char *path;
        const eval_od_result_t *predicted;
        const eval_od_result_t *ground_truth;
} eval_detect_image_t;

typedef struct eval_detect_params {
        const eval_labels_t *images;                 /* paths */
        const eval_od_ground_truth_t *ground_truth;  /* by image file name */
        int32_t class_offset;                        /* ObjectDetectionParams: default 1 */
        eval_ap_params_t ap;
        const eval_preprocess_t *preprocess;         /* NULL: resize, normalise */
        void (*on_image)(void *user, size_t done, size_t total, const eval_detect_image_t *image);
        void *user;
} eval_detect_params_t;

typedef struct eval_detect_metrics {
        eval_latency_metrics_t total_latency;
        eval_latency_metrics_t pre_processing_latency, inference_latency;
        int32_t num_inferences;
        eval_ap_metrics_t average_precision;
} eval_detect_metrics_t;

void eval_detect_metrics_done(eval_detect_metrics_t *m);

/*
 * TFLite's object-detection evaluation: for each image, decode, preprocess
 * for input 0, invoke, decode outputs 0..3 as TFLite_Detection_PostProcess
 * and add them with the image's ground truth (found by file name; a missing
 * entry is -ENOENT) to the AP computation. 0 or a negative errno with a
 * message.
 */
int eval_detect_run(eval_runner_t *r, const eval_detect_params_t *p, eval_detect_metrics_t *ret, char *err,
                    size_t err_size);

/* ---- the seed's metrics as proto3 JSON (metrics-json.c) ----
 *
 * Field names are proto3 JSON's lowerCamelCase; int64 fields are decimal
 * strings, as the proto3 JSON mapping writes them. Each returns a new
 * object (NULL on ENOMEM). */

json_object *eval_json_latency(const eval_latency_metrics_t *m);
json_object *eval_json_accuracy(const eval_accuracy_metrics_t *m);
/* ProcessMetrics{totalLatency, inferenceProfilerMetrics}. */
json_object *eval_json_profiler(const eval_profiler_metrics_t *m);
/* ProcessMetrics{totalLatency, imageClassificationMetrics}. */
json_object *eval_json_classify(const eval_classify_metrics_t *m);
/* ProcessMetrics{totalLatency, objectDetectionMetrics}. */
json_object *eval_json_detect(const eval_detect_metrics_t *m);
/* ObjectDetectionAveragePrecisionMetrics. */
json_object *eval_json_ap(const eval_ap_metrics_t *m);
