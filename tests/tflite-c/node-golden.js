// SPDX-License-Identifier: Apache-2.0
//
// Drive a Node.js TensorFlow Lite binding that nobody here wrote over every
// runnable shared model, and compare with the goldens (the comparison rule
// of shared/models/README.md). Run by node-clients.sh:
//
//   node node-golden.js CLIENT NODE_MODULES TOLERANCE EXPECT_LIB
//
// CLIENT is tfjs-tflite-node or node-tflite, NODE_MODULES the install
// holding it, TOLERANCE reference or accelerated, EXPECT_LIB the real path
// of the libtensorflowlite_c.so that must be the one loaded (checked in
// /proc/self/maps: proof that the loader picked ours). Prints one line per
// model and exits 1 when any model fails.
'use strict';
const fs = require('fs');
const path = require('path');

const [client, modules, tolKind, expectLib] = process.argv.slice(2);
const shared = process.env.ACCELD_SHARED_DIR;
const modelsDir = path.join(shared, 'models');
const manifest = JSON.parse(fs.readFileSync(path.join(modelsDir, 'manifest.json'), 'utf8'));

const views = {
  float32: Float32Array, int32: Int32Array, uint8: Uint8Array, int8: Int8Array,
  int16: Int16Array, int64: BigInt64Array, bool: Uint8Array,
};

// A fresh ArrayBuffer with exactly the file's bytes (node-tflite checks
// data.buffer.byteLength, so no pooled Buffer slices).
function readExact(file) {
  const b = fs.readFileSync(file);
  const out = new Uint8Array(b.length);
  out.set(b);
  return out;
}

function compare(out, golden, bytes) {
  const want = readExact(path.join(modelsDir, out.file));
  if (bytes.length !== want.length)
    return `size ${bytes.length}, golden ${want.length}`;
  if (out.type === 'string')
    return Buffer.compare(Buffer.from(bytes), Buffer.from(want)) === 0 ? null : 'strings differ';
  const V = views[out.type];
  if (!V)
    return `type ${out.type} not compared`;
  const a = new V(bytes.buffer, bytes.byteOffset, bytes.length / V.BYTES_PER_ELEMENT);
  const b = new V(want.buffer, 0, want.length / V.BYTES_PER_ELEMENT);
  const tol = (out.tolerance || {})[tolKind] || {};
  const ignore = new Set(out.ignore_elements || tol.ignore_elements || []);
  let mismatches = 0;
  for (let i = 0; i < b.length; i++) {
    if (ignore.has(i))
      continue;
    if (out.type === 'float32') {
      const x = a[i], y = b[i];
      if (Number.isNaN(y)) {
        if (!Number.isNaN(x)) return `element ${i}: ${x}, golden NaN`;
      } else if (!Number.isFinite(y)) {
        if (x !== y) return `element ${i}: ${x}, golden ${y}`;
      } else if (!Number.isFinite(x) || Math.abs(x - y) > (tol.atol || 0) + (tol.rtol || 0) * Math.abs(y)) {
        return `element ${i}: ${x}, golden ${y} (atol ${tol.atol}, rtol ${tol.rtol})`;
      }
    } else {
      const d = Math.abs(Number(a[i]) - Number(b[i]));
      if (d !== 0) mismatches++;
      if (d > (tol.steps || 0)) return `element ${i}: ${a[i]}, golden ${b[i]} (steps ${tol.steps})`;
    }
  }
  if (tol.max_mismatch_fraction !== undefined && mismatches / b.length > tol.max_mismatch_fraction)
    return `${mismatches} of ${b.length} elements differ`;
  return null;
}

// One run through the client's own API: the golden inputs in, one invoke,
// the outputs' bytes back.
function runTfjs(mod, model, entry) {
  const runner = new mod.TFLiteNodeModelRunner(model.buffer, {threads: 1});
  const inputs = runner.getInputs();
  inputs.forEach((t, i) => {
    const d = t.data();
    new Uint8Array(d.buffer, d.byteOffset, d.byteLength).set(readExact(path.join(modelsDir, entry.inputs[i].file)));
  });
  runner.infer();
  return runner.getOutputs().map((t) => {
    const d = t.data();
    return new Uint8Array(d.buffer, d.byteOffset, d.byteLength).slice();
  });
}

function runNodeTflite(mod, model, entry) {
  const it = new mod.Interpreter(model, {numThreads: 1});
  it.allocateTensors();
  it.inputs.forEach((t, i) => t.copyFrom(readExact(path.join(modelsDir, entry.inputs[i].file))));
  it.invoke();
  return it.outputs.map((t) => {
    const out = new Uint8Array(t.byteSize);
    t.copyTo(out);
    return out;
  });
}

const mod = require(path.join(modules, client));
const run = client === 'node-tflite' ? runNodeTflite : runTfjs;
// Types each client cannot hand over (their bindings throw on them).
const unsupported = client === 'node-tflite' ? ['string'] : ['string', 'float16'];
let passed = 0, failed = 0, skipped = 0;
for (const entry of manifest.models) {
  if (!entry.runnable)
    continue;
  const file = path.join(modelsDir, entry.file);
  const types = entry.inputs.concat(entry.outputs).map((t) => t.type);
  const bad = types.find((t) => unsupported.includes(t));
  if (!fs.existsSync(file) || bad) {
    console.log(`${client} ${entry.name.padEnd(50)} SKIP (${bad ? `${bad} tensors: the client has no way to pass them` : 'file not stored'})`);
    skipped++;
    continue;
  }
  // tfjs-tflite-node sizes each output's JS buffer once, before the first
  // invoke, and copies TfLiteTensorByteSize() bytes into it afterwards: an
  // output whose shape is only known at run time overflows it. Native
  // TensorFlow Lite 2.9 crashes the same way (a bug of the client), so
  // those models are not run through it.
  const count = (s) => s.reduce((a, b) => a * b, 1);
  const dynamic = entry.outputs.find((t) => t.declared_shape && count(t.declared_shape) !== count(t.shape));
  if (client === 'tfjs-tflite-node' && dynamic) {
    console.log(`${client} ${entry.name.padEnd(50)} SKIP (output ${dynamic.name} is sized at run time; tfjs-tflite-node overflows its output buffer then; native TensorFlow Lite 2.9 crashes the same way on style_transfer_dynamic_range)`);
    skipped++;
    continue;
  }
  let why = null;
  try {
    const outs = run(mod, readExact(file), entry);
    for (let i = 0; i < entry.outputs.length && !why; i++) {
      const w = compare(entry.outputs[i], null, outs[i]);
      if (w) why = `output ${i}: ${w}`;
    }
  } catch (e) {
    why = String(e && e.message || e);
  }
  console.log(`${client} ${entry.name.padEnd(50)} ${why ? `FAIL: ${why}` : 'PASS'}`);
  if (why) failed++; else passed++;
}

const maps = fs.readFileSync('/proc/self/maps', 'utf8').split('\n').filter((l) => l.includes('libtensorflowlite_c'));
const loaded = [...new Set(maps.map((l) => fs.realpathSync(l.slice(l.indexOf('/')))))];
if (loaded.length !== 1 || loaded[0] !== fs.realpathSync(expectLib)) {
  console.log(`${client}: loaded ${loaded.join(', ') || 'no libtensorflowlite_c'}, expected ${expectLib}`);
  process.exit(1);
}
console.log(`${client}: ${passed} passed, ${failed} failed, ${skipped} skipped (library ${loaded[0]})`);
process.exit(failed ? 1 : 0);
