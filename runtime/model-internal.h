/* SPDX-License-Identifier: Apache-2.0 */
/* INTERNAL header of the runtime (runtime_internal_dep): not installed, not
 * part of the public API in runtime/include/ (docs/architecture.md). */
/*
 * Shared between the verifier (verify.c) and the loader (model.c). Field ids
 * are the order of fields in TFLite's schema.fbs; a union takes two ids (its
 * _type byte, then the value).
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "fbt.h"
#include "model.h"

/* FlatBuffers structures must lie in the first 2 GiB; data referenced by a
 * Buffer's offset/size may lie anywhere in the file. */
#define RT__FB_MAX_SIZE ((size_t) INT32_MAX)

enum {
        RT__MODEL_VERSION = 0,
        RT__MODEL_OPERATOR_CODES = 1,
        RT__MODEL_SUBGRAPHS = 2,
        RT__MODEL_DESCRIPTION = 3,
        RT__MODEL_BUFFERS = 4,
        RT__MODEL_METADATA_BUFFER = 5,
        RT__MODEL_METADATA = 6,
        RT__MODEL_SIGNATURE_DEFS = 7,

        RT__OPCODE_DEPRECATED_BUILTIN_CODE = 0,
        RT__OPCODE_CUSTOM_CODE = 1,
        RT__OPCODE_VERSION = 2,
        RT__OPCODE_BUILTIN_CODE = 3,

        RT__SUBGRAPH_TENSORS = 0,
        RT__SUBGRAPH_INPUTS = 1,
        RT__SUBGRAPH_OUTPUTS = 2,
        RT__SUBGRAPH_OPERATORS = 3,
        RT__SUBGRAPH_NAME = 4,

        RT__TENSOR_SHAPE = 0,
        RT__TENSOR_TYPE = 1,
        RT__TENSOR_BUFFER = 2,
        RT__TENSOR_NAME = 3,
        RT__TENSOR_QUANTIZATION = 4,
        RT__TENSOR_IS_VARIABLE = 5,
        RT__TENSOR_SPARSITY = 6,
        RT__TENSOR_SHAPE_SIGNATURE = 7,
        RT__TENSOR_HAS_RANK = 8,
        RT__TENSOR_VARIANT_TENSORS = 9,

        RT__QUANT_MIN = 0,
        RT__QUANT_MAX = 1,
        RT__QUANT_SCALE = 2,
        RT__QUANT_ZERO_POINT = 3,
        RT__QUANT_DETAILS_TYPE = 4,
        RT__QUANT_DETAILS = 5,
        RT__QUANT_QUANTIZED_DIMENSION = 6,

        RT__SPARSITY_TRAVERSAL_ORDER = 0,
        RT__SPARSITY_BLOCK_MAP = 1,
        RT__SPARSITY_DIM_METADATA = 2,

        RT__DIM_FORMAT = 0,
        RT__DIM_DENSE_SIZE = 1,
        RT__DIM_ARRAY_SEGMENTS_TYPE = 2,
        RT__DIM_ARRAY_SEGMENTS = 3,
        RT__DIM_ARRAY_INDICES_TYPE = 4,
        RT__DIM_ARRAY_INDICES = 5,

        RT__OP_OPCODE_INDEX = 0,
        RT__OP_INPUTS = 1,
        RT__OP_OUTPUTS = 2,
        RT__OP_BUILTIN_OPTIONS_TYPE = 3,
        RT__OP_BUILTIN_OPTIONS = 4,
        RT__OP_CUSTOM_OPTIONS = 5,
        RT__OP_CUSTOM_OPTIONS_FORMAT = 6,
        RT__OP_MUTATING_VARIABLE_INPUTS = 7,
        RT__OP_INTERMEDIATES = 8,
        RT__OP_LARGE_CUSTOM_OPTIONS_OFFSET = 9,
        RT__OP_LARGE_CUSTOM_OPTIONS_SIZE = 10,
        RT__OP_BUILTIN_OPTIONS_2_TYPE = 11,
        RT__OP_BUILTIN_OPTIONS_2 = 12,

        RT__BUFFER_DATA = 0,
        RT__BUFFER_OFFSET = 1,
        RT__BUFFER_SIZE = 2,

        RT__METADATA_NAME = 0,
        RT__METADATA_BUFFER = 1,

        RT__TENSORMAP_NAME = 0,
        RT__TENSORMAP_TENSOR_INDEX = 1,

        RT__SIGNATURE_INPUTS = 0,
        RT__SIGNATURE_OUTPUTS = 1,
        RT__SIGNATURE_KEY = 2,
        RT__SIGNATURE_SUBGRAPH_INDEX = 4,
};

/* SparseIndexVector union tags. */
enum {
        RT__SPARSE_INDEX_NONE = 0,
        RT__SPARSE_INDEX_INT32 = 1,
        RT__SPARSE_INDEX_UINT16 = 2,
        RT__SPARSE_INDEX_UINT8 = 3,
};

/* Number of BuiltinOptions2 union members (StableHLO options). */
#define RT__OPTIONS_2_MAX 20

/* The root Model table, with the table view limited to RT__FB_MAX_SIZE. */
fbt_table_t rt__model_root(const uint8_t *buf, size_t size);

/* The op code of an OperatorCode table: max(deprecated, builtin_code). */
int32_t rt__opcode_code(fbt_table_t opcode);

/*
 * The bytes of buffer `index` of a verified model: inline data or the
 * offset/size form (offset counted from the start of the file). Returns
 * NULL / 0 for an empty or absent buffer.
 */
const uint8_t *rt__buffer_bytes(const uint8_t *buf, size_t file_size, fbt_table_t root, uint32_t index,
                                size_t *ret_size);
