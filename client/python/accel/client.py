# SPDX-License-Identifier: Apache-2.0
"""accel.Client: acceld's queries, with accelctl --json's field names."""

import json
import os
import time

from . import _native
from ._errors import GeneralFailure

EVENT_TYPES = ["UNDEFINED_BENCHMARK_EVENT_TYPE", "START", "END", "ERROR", "LOGGED"]
STAGES = ["UNKNOWN", "INITIALIZATION", "INFERENCE"]
DELEGATES = ["NONE", "NNAPI", "GPU", "HEXAGON", "XNNPACK", "EDGETPU", "EDGETPU_CORAL"]
PREFERENCES = ["ANY", "LOW_LATENCY", "LOW_POWER", "FORCE_CPU"]


def _name(names, v):
    return names[v] if isinstance(v, int) and 0 <= v < len(names) else "?"


def _settings(text):
    try:
        return json.loads(text) if text else {}
    except ValueError:
        return {}


def _model_args(model):
    """path= or content= for a model given as a path or bytes."""
    if isinstance(model, (bytes, bytearray, memoryview)):
        return {"content": bytes(model)}
    path = os.fspath(model)
    if not os.path.isfile(path):
        raise ValueError(f"Could not open '{path}'.")
    return {"path": path}


def _sha256(model):
    """A model's SHA-256: given as 64 hex digits, or computed from a path or
    bytes (as accelctl does)."""
    import hashlib
    if isinstance(model, str) and len(model) == 64 and not os.path.exists(model):
        int(model, 16)
        return model.lower()
    if isinstance(model, (bytes, bytearray, memoryview)):
        return hashlib.sha256(bytes(model)).hexdigest()
    h = hashlib.sha256()
    with open(os.fspath(model), "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _evaluation(e):
    """A stored evaluation, keyed as accelctl events --evaluations --json."""
    out = {"id": e["id"], "model_sha256": e["model_sha256"], "settings_key": e["settings_key"],
           "stage": e["stage"], "source": e["source"]}
    if e["accuracy"] is not None:
        out["accuracy"] = e["accuracy"]
    out["samples"] = e["samples"]
    out["wallclock_us"] = e["wallclock_us"]
    if e["uid"] is not None:
        out["uid"] = e["uid"]
    out["metrics"] = _settings(e["metrics_json"])
    return out


def _event(e):
    out = {"id": e["id"], "model_sha256": e["model_sha256"], "settings_key": e["settings_key"],
           "tflite_settings": _settings(e["settings_json"]), "event_type": _name(EVENT_TYPES, e["event_type"])}
    r = e.get("result")
    if r is not None:
        res = {"initialization_time_us": r["initialization_time_us"], "inference_time_us": r["inference_time_us"]}
        if r["max_memory_kb"] is not None:
            res["max_memory_kb"] = r["max_memory_kb"]
        if r["ok"] is not None:
            res["ok"] = r["ok"]
        res["metrics"] = r["metrics"]
        out["result"] = res
    x = e.get("error")
    if x is not None:
        err = {}
        if x["stage"] is not None:
            err["stage"] = _name(STAGES, x["stage"])
        if x["exit_code"] is not None:
            err["exit_code"] = x["exit_code"]
        if x["signal"] is not None:
            err["signal"] = x["signal"]
        err["error_code"] = [{"source": _name(DELEGATES, c["source"]), "tflite_error": c["tflite_error"],
                              "underlying_api_error": c["underlying_api_error"]} for c in x["error_code"]]
        out["error"] = err
    for k in ("boottime_us", "wallclock_us"):
        if k in e:
            out[k] = e[k]
    return out


class Client:
    """Client(socket=None): one connection to acceld (the socket as for
    accelctl: the argument, else $ACCELD_SOCKET, else the default)."""

    def __init__(self, socket=None):
        self._native = _native.Client(socket=None if socket is None else os.fspath(socket))

    def close(self):
        self._native.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def capabilities(self):
        """CPU, memory and backends (accelctl caps --json)."""
        return self._native.capabilities()

    def status(self):
        """The daemon's counters (accelctl status --json)."""
        return self._native.status()

    def supported_operations(self, model):
        """Per node, which drivers support it (accelctl ops --json)."""
        return self._native.supported_operations(**_model_args(model))

    def models(self):
        """The models acceld holds (accelctl models --json)."""
        return self._native.models()

    def benchmark(self, model, candidates=None, progress=None, runs=0, timeout_ms=0, poll_s=0.2):
        """Mini-benchmark `model` (path, bytes or a stored model's SHA-256)
        over `candidates` (settings dicts or JSON strings; None: acceld
        generates them) and wait for the result (accelctl bench --json).
        `progress(state)` is called with each polled state (dict with done,
        total, candidates, finished)."""
        cands = None
        if candidates is not None:
            cands = [c if isinstance(c, str) else json.dumps(c) for c in candidates]
        if isinstance(model, str) and len(model) == 64 and not os.path.exists(model):
            run = self._native.bench_start(sha256=model, candidates=cands, runs=runs, timeout_ms=timeout_ms)
        else:
            run = self._native.bench_start(candidates=cands, runs=runs, timeout_ms=timeout_ms, **_model_args(model))
        while True:
            p = self._native.bench_progress(run)
            if progress is not None:
                progress(p)
            if p["finished"]:
                break
            time.sleep(poll_s)
        if p["message"] and not p["candidates"]:
            raise GeneralFailure(p["message"], "GENERAL_FAILURE")
        return {
            "model_sha256": p["model_sha256"],
            "candidates": [{"settings": _settings(c["settings_json"]), "ok": c["ok"] is True,
                            "median_us": c["median_us"], "p90_us": c["p90_us"], "init_us": c["init_us"],
                            "max_memory_kb": c["max_memory_kb"], "error": c["error"]} for c in p["candidates"]],
            "best": _settings(p["best_settings_json"]) if p["best_label"] else None,
        }

    def events(self, model=None, settings_key=None, event_type=None, from_us=None, to_us=None, limit=0):
        """Recorded benchmark events, oldest first (accelctl events --json).
        `model` is a path, bytes or SHA-256; event_type a name (START, END,
        ERROR, LOGGED) or number."""
        if isinstance(event_type, str):
            event_type = EVENT_TYPES.index(event_type.upper())
        sha = None if model is None else _sha256(model)
        return [_event(e) for e in self._native.events(model_sha256=sha, settings_key=settings_key,
                                                       event_type=event_type or 0, from_us=from_us, to_us=to_us,
                                                       limit=limit)]

    def evaluations(self, model=None, limit=0):
        """Stored evaluation results, oldest first (accelctl events
        --evaluations --json): the caller's own unless an operator. `model`
        is a path, bytes or SHA-256."""
        sha = None if model is None else _sha256(model)
        return [_evaluation(e) for e in self._native.evaluations(model_sha256=sha, limit=int(limit))]

    def best(self, model, preference="ANY"):
        """The settings acceld chose for `model` under an
        ExecutionPreference (ANY, LOW_LATENCY, LOW_POWER, FORCE_CPU) and why
        (accelctl best --json). NotFound when none ran correctly."""
        pref = PREFERENCES.index(preference.upper()) if isinstance(preference, str) else int(preference)
        b = self._native.best(_sha256(model), pref)
        return {"settings": _settings(b["settings_json"]), "reason": b["reason"], "label": b["label"],
                "settings_key": b["settings_key"], "decided_at_us": b["decided_at_us"]}
