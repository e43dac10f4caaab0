#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""What one client's short deadlines cost the others (docs/performance.md,
"Deadlines on a shared host").

    PYTHONPATH=build/client/python bench/deadline-neighbours.py \\
        --socket S --model M [--settings JSON] [--deadline-ms 30] [--seconds 45] [--others 1]

Client A invokes `model` in a loop with a `deadline_ms` deadline on every
invoke; `--others` clients invoke the same model with the same settings and no
deadline at the same time. Prints one JSON object: per client, successes and
errors by kind.
"""
import argparse
import json
import multiprocessing as mp
import time

import numpy as np

import accel


def client(name, args, deadline_ms, out):
    it = accel.Interpreter(model_path=args.model, settings=args.settings, socket=args.socket,
                           deadline_ms=deadline_ms)
    it.allocate_tensors()
    inp = it.get_input_details()[0]
    it.set_tensor(inp["index"], np.zeros(inp["shape"], dtype=inp["dtype"]))
    counts = {"ok": 0}
    end = time.monotonic() + args.seconds
    while time.monotonic() < end:
        try:
            it.invoke()
            counts["ok"] += 1
        except Exception as e:  # noqa: BLE001 - counted by kind
            kind = type(e).__name__
            counts[kind] = counts.get(kind, 0) + 1
    out.put((name, counts))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--socket", required=True)
    p.add_argument("--model", required=True)
    p.add_argument("--settings", default='{"delegate":"XNNPACK"}')
    p.add_argument("--deadline-ms", type=int, default=30)
    p.add_argument("--seconds", type=float, default=45)
    p.add_argument("--others", type=int, default=1)
    args = p.parse_args()
    ctx = mp.get_context("fork")
    q = ctx.Queue()
    procs = [ctx.Process(target=client, args=("deadline", args, args.deadline_ms, q))]
    procs += [ctx.Process(target=client, args=(f"other{i}", args, None, q)) for i in range(args.others)]
    for pr in procs:
        pr.start()
    result = dict(q.get() for _ in procs)
    for pr in procs:
        pr.join()
    print(json.dumps({"deadline_ms": args.deadline_ms, "seconds": args.seconds, "settings": args.settings,
                      "clients": result}))


if __name__ == "__main__":
    main()
